// An upstream that takes a request and never answers: for tests that a client hanging up cancels our own
// call to the provider. It notes when a request has fully arrived, and whether our side dropped it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen, type TestApp } from './app.js';
import type { World } from './upstream-world.js';

export interface HungUpstream {
  url: string;
  /** Resolves once a request's body has fully arrived. */
  requested: Promise<void>;
  /** True when our side closed the connection within `ms`. */
  closedWithin(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function hungUpstream(): Promise<HungUpstream> {
  let sawRequest!: () => void;
  let sawClose!: () => void;
  const requested = new Promise<void>((ok) => (sawRequest = ok));
  const closed = new Promise<void>((ok) => (sawClose = ok));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => sawRequest());
    res.on('close', () => sawClose());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    async closedWithin(ms) {
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((ok) => (timer = setTimeout(() => ok(false), ms))),
      ]);
      clearTimeout(timer);
      return outcome;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/** A client that asks `url` and hangs up once `when` resolves: what its fetch ended with (an AbortError). */
export async function hangUp(url: string, when: Promise<unknown>, init: RequestInit = {}): Promise<unknown> {
  const client = new AbortController();
  const call = fetch(url, { ...init, signal: client.signal }).catch((err: Error) => err);
  await when;
  client.abort();
  return call;
}

/**
 * Runs `fn` with a hung upstream and one more app of `world` pointed at it (`env` names its address),
 * listening on a real socket (a client can only hang up on one); closes the three after, whatever happens.
 */
export async function onHungUpstream(
  world: Pick<World, 'withApp'>,
  env: (url: string) => Record<string, string>,
  fn: (hung: HungUpstream, serverUrl: string, app: TestApp) => Promise<void>,
): Promise<void> {
  const hung = await hungUpstream();
  try {
    await world.withApp({ env: env(hung.url) }, async ({ t: app }) => {
      const server = await listen(app.app);
      try {
        await fn(hung, server.url, app);
      } finally {
        await server.close();
      }
    });
  } finally {
    await hung.close();
  }
}
