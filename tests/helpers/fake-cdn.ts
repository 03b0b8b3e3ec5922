// A media CDN on loopback as the downloaders' providers hand links to: it serves one file per path, refuses
// (403) a request without the Referer and User-Agent it expects, refuses a link past the `exp` (epoch ms)
// its query carries, answers HEAD and single byte ranges, and counts the requests it answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCdn {
  url: string;
  /** Every request, as method, path and status. */
  requests: Array<{ method: string; path: string; status: number; range?: string }>;
  /** A link to `path` that expires `ttlMs` from now. */
  link(path: string, ttlMs: number): string;
  close(): Promise<void>;
}

export interface FakeCdnOptions {
  /** `stallMs`: the first kilobyte at once, the rest that much later (a stream held open). */
  files: Record<string, { bytes: Buffer; type: string; stallMs?: number }>;
  referer: string;
  userAgent: string;
}

export async function fakeCdn(opts: FakeCdnOptions): Promise<FakeCdn> {
  const requests: FakeCdn['requests'] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://cdn.local');
    const range = req.headers.range;
    const end = (status: number, headers: Record<string, string | number> = {}, body?: Buffer) => {
      requests.push({ method: req.method ?? 'GET', path: u.pathname, status, ...(range ? { range } : {}) });
      res.writeHead(status, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const file = opts.files[u.pathname];
    if (!file) return end(404);
    if (req.headers.referer !== opts.referer || req.headers['user-agent'] !== opts.userAgent) return end(403);
    if (!(Number(u.searchParams.get('exp')) > Date.now())) return end(403);
    const size = file.bytes.length;
    const m = typeof range === 'string' ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
    if (m) {
      const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
      const last = m[1] === '' || m[2] === '' ? size - 1 : Math.min(size - 1, Number(m[2]));
      if (start >= size || start > last) return end(416, { 'content-range': `bytes */${size}` });
      return end(
        206,
        {
          'content-type': file.type,
          'content-length': last - start + 1,
          'content-range': `bytes ${start}-${last}/${size}`,
          'accept-ranges': 'bytes',
        },
        file.bytes.subarray(start, last + 1),
      );
    }
    if (!file.stallMs || req.method === 'HEAD')
      return end(200, { 'content-type': file.type, 'content-length': size, 'accept-ranges': 'bytes' }, file.bytes);
    requests.push({ method: 'GET', path: u.pathname, status: 200 });
    res.writeHead(200, { 'content-type': file.type, 'content-length': size });
    res.write(file.bytes.subarray(0, 1024));
    setTimeout(() => res.end(file.bytes.subarray(1024)), file.stallMs).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    link: (path, ttlMs) => `${url}${path}?exp=${Date.now() + ttlMs}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
