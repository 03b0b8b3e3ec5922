// A request's upstream exchanges stop with it, with no signal passed by the adapter (engine/upstream/cancel.ts): when
// the endpoint's time is up, when its client hangs up, and before they are sent when it is stopped already.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { Call } from '../../../engine/pipeline/call.js';
import type { EndpointSpec } from '../../../engine/catalog/load.js';
import { watchClient } from '../../../engine/upstream/cancel.js';
import type { ApiError } from '../../../engine/errors.js';
import { createLogger } from '../../../engine/infra/logger.js';
import { invoker } from '../../../engine/pipeline/steps/invoke.js';
import { createMemo } from '../../../engine/upstream/memo.js';
import { createUpstreams, type UpstreamConfig } from '../../../engine/upstream/client.js';
import { wholeAnswer } from '../../../engine/upstream/whole-answer.js';
import type { Adapter } from '../../../engine/types.js';
import { hangUp, hungUpstream, type HungUpstream } from '../../helpers/hung-upstream.js';

const log = createLogger('silent');
let hung: HungUpstream;
beforeEach(async () => {
  hung = await hungUpstream();
});
afterEach(async () => {
  await hung.close();
});

/** A server whose one endpoint runs `adapter` under `timeout` and answers the outcome's status or error code. */
async function endpointServer(adapter: Adapter, timeout: string) {
  const upstream = createUpstreams({ hung: { url: hung.url } as UpstreamConfig }, {}, { userAgent: 'test', log });
  const spec = { id: 'test/cancel', method: 'GET', params: {}, upstream: 'hung', timeout } as unknown as EndpointSpec;
  const invoke = invoker(spec, [{ adapter, upstream: 'hung' }], {
    log,
    memo: createMemo(),
    publicUrl: 'http://localhost',
    userAgent: 'test',
    allowPrivateFetch: true,
    upstream,
    blobs: undefined as never,
  });
  const server = http.createServer((req, res) => {
    const call = new Call('test/cancel', '/x', null, req, res, { observe: () => {}, trust: () => false });
    call.input = { raw: {}, files: {} };
    call.params = {};
    invoke(call, (e) => res.end(e ? (e as ApiError).code : 'ok'));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((ok) => server.close(ok));
    },
  };
}

const callsHung: Adapter = async (_params, ctx) => (await ctx.upstream('hung').request({ path: '/slow' })).body as never;

test("the endpoint's deadline stops its upstream exchange and answers upstream_timeout", async () => {
  const s = await endpointServer(callsHung, '300ms');
  try {
    const started = Date.now();
    const answer = await fetch(`${s.url}/x`).then((r) => r.text());
    expect(answer).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await hung.closedWithin(3000)).toBe(true);
  } finally {
    await s.close();
  }
});

test('a client that hangs up stops the upstream exchange, without the adapter passing a signal', async () => {
  const s = await endpointServer(callsHung, '30s');
  try {
    expect(await hangUp(`${s.url}/x`, hung.requested)).toMatchObject({ name: 'AbortError' });
    expect(await hung.closedWithin(3000)).toBe(true);
  } finally {
    await s.close();
  }
});

test('ctx.signal, for an adapter that reads it, aborts when the client hangs up', async () => {
  let heard!: (reason: unknown) => void;
  const aborted = new Promise((ok) => (heard = ok));
  const waits: Adapter = (_params, ctx) =>
    new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => {
        heard(ctx.signal.reason);
        reject(ctx.signal.reason);
      });
    });
  const s = await endpointServer(waits, '30s');
  try {
    await hangUp(`${s.url}/x`, new Promise((r) => setTimeout(r, 100)));
    expect(await aborted).toMatchObject({ message: 'client disconnected' });
  } finally {
    await s.close();
  }
});

test('an exchange of a request stopped already is not sent, and rejects with its reason', async () => {
  const reason = new Error('stopped');
  const scope = { cancelled: reason, watch: (c: { abort(e: Error): void }) => c.abort(reason), unwatch: () => {} };
  const agent = new Agent();
  try {
    const url = new URL(hung.url);
    await expect(
      wholeAnswer(agent, { origin: url.origin, path: '/', method: 'GET' }, { maxBytes: 1024, timeoutMs: 5000, scope }),
    ).rejects.toBe(reason);
    let sent = false;
    void hung.requested.then(() => (sent = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBe(false);
  } finally {
    await agent.close();
  }
});

test("a watcher hears of its client's socket closing once, and not after it stopped watching", async () => {
  const server = net
    .createServer((socket) => {
      const heard: string[] = [];
      const stop = watchClient(socket, { clientGone: () => heard.push('b') });
      watchClient(socket, { clientGone: () => heard.push('a') });
      stop();
      socket.on('close', () =>
        setImmediate(() => {
          // Gone already: a new watcher hears it at once.
          watchClient(socket, { clientGone: () => heard.push('late') });
          server.emit('heard', heard);
        }),
      );
    })
    .listen(0, '127.0.0.1');
  await new Promise((ok) => server.once('listening', ok));
  const heard = new Promise<string[]>((ok) => server.once('heard', ok));
  net.connect((server.address() as AddressInfo).port, '127.0.0.1').on('connect', function (this: net.Socket) {
    this.end();
  });
  expect(await heard).toEqual(['a', 'late']);
  await new Promise((ok) => server.close(ok));
});
