// A real HTTP server on 127.0.0.1 standing in for an upstream provider in tests.
// Handlers answer with plain objects; every request is recorded in `calls` for assertions.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  /** Pathname only, without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** When it had fully arrived (Date.now()), for tests of pacing. */
  at: number;
  /** The body parsed as JSON (throws if it is not JSON). */
  json(): unknown;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as text/plain unless headers say otherwise. */
  text?: string;
  body?: Buffer;
  /** Wait this long before answering (timeouts, coalescing). */
  delayMs?: number;
}

export type FakeHandler = (req: FakeRequest) => FakeResponse | Promise<FakeResponse>;

export interface FakeUpstream {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:40123 */
  url: string;
  calls: FakeRequest[];
  close(): Promise<void>;
}

export async function fakeUpstream(handler: FakeHandler): Promise<FakeUpstream> {
  const calls: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake.local');
      const body = Buffer.concat(chunks);
      const fr: FakeRequest = {
        method: req.method ?? 'GET',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body,
        at: Date.now(),
        json: () => JSON.parse(body.toString('utf8')),
      };
      calls.push(fr);
      Promise.resolve()
        .then(() => handler(fr))
        .then(async (r) => {
          // A client that gave up (timeout tests) ends the wait, so no timer outlives the test.
          if (r.delayMs) {
            await new Promise<void>((ok) => {
              const t = setTimeout(ok, r.delayMs);
              res.once('close', () => {
                clearTimeout(t);
                ok();
              });
            });
          }
          if (res.destroyed) return;
          const headers: Record<string, string | string[]> = { ...(r.headers ?? {}) };
          const has = (h: string) => Object.keys(headers).some((k) => k.toLowerCase() === h);
          let payload: Buffer;
          if (r.body !== undefined) payload = r.body;
          else if (r.text !== undefined) {
            payload = Buffer.from(r.text, 'utf8');
            if (!has('content-type')) headers['content-type'] = 'text/plain; charset=utf-8';
          } else if (r.json !== undefined) {
            payload = Buffer.from(JSON.stringify(r.json), 'utf8');
            if (!has('content-type')) headers['content-type'] = 'application/json';
          } else payload = Buffer.alloc(0);
          res.writeHead(r.status ?? 200, headers);
          res.end(payload);
        })
        .catch((err: unknown) => {
          if (res.destroyed) return;
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: `fake handler threw: ${String(err)}` }));
        });
    });
  });
  // Long-delayed answers must not keep close() waiting.
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

export type RouteHandler = (req: FakeRequest, params: Record<string, string>) => FakeResponse | Promise<FakeResponse>;

/**
 * A tiny router: keys are `METHOD /path/:param` (METHOD may be `*`). Unmatched requests get
 * `fallback`, by default a 404 `{ "message": "not found" }`.
 */
export function routes(table: Record<string, RouteHandler>, fallback?: FakeHandler): FakeHandler {
  const compiled = Object.entries(table).map(([key, fn]) => {
    const [method, pattern] = key.trim().split(/\s+/, 2);
    const names: string[] = [];
    const re = new RegExp(
      '^' +
        pattern
          .split('/')
          .map((seg) => {
            if (seg.startsWith(':')) {
              names.push(seg.slice(1));
              return '([^/]+)';
            }
            return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          })
          .join('/') +
        '/?$',
    );
    return { method: method.toUpperCase(), re, names, fn };
  });
  return (req) => {
    for (const r of compiled) {
      if (r.method !== '*' && r.method !== req.method) continue;
      const m = r.re.exec(req.path);
      if (!m) continue;
      const params: Record<string, string> = {};
      r.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
      return r.fn(req, params);
    }
    return fallback ? fallback(req) : { status: 404, json: { message: 'not found' } };
  };
}
