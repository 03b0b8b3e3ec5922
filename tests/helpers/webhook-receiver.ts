// A webhook receiver on a loopback port for the webhook tests: it checks every request with the
// `standardwebhooks` package (an implementation we did not write) under the secret it is given, records
// it, and answers as the test scripts it (a status and body per request, or no answer at all).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What Webhook.verify returned, or its error's message. */
  verified: unknown;
  error?: string;
}

/** How to answer request number `n` (from 0): a status and body, or 'hang' to never answer. */
export type Script = (n: number) => { status: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** The whsec_… secret requests are checked with. */
  secret: string;
  answer: Script;
  /** Waits until `n` requests came, for at most `ms`. */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function webhookReceiver(answer: Script = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const r = { received: [] as Received[], secret: '', answer } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got: Received = { headers: req.headers, body, verified: undefined };
      try {
        got.verified = new Webhook(r.secret).verify(body, req.headers as Record<string, string>);
      } catch (err) {
        got.error = (err as Error).message;
      }
      const how = r.answer(r.received.length);
      r.received.push(got);
      if (how !== 'hang') res.writeHead(how.status, { 'content-type': 'text/plain' }).end(how.body ?? '');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  r.waitFor = async (n, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (r.received.length < n) {
      if (Date.now() > deadline) throw new Error(`the receiver got ${r.received.length} of ${n} requests within ${ms} ms`);
      await new Promise((ok) => setTimeout(ok, 20));
    }
    return r.received;
  };
  r.close = async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  };
  return r;
}
