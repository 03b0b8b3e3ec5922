import net from 'node:net';
import zlib from 'node:zlib';
import { fetchUrl, isPublicAddress, type ResolveHost } from '../../../engine/upstream/guarded-fetch.js';
import { fakeUpstream, routes, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { apiError } from '../../helpers/api-error.js';

const PRIVATE = 'Invalid value for url: private, loopback, link-local and metadata addresses are not allowed';
/** A name that resolves to a private address reads as one that resolves to nothing. */
const UNREACHABLE = 'Could not fetch url: host not found, unreachable or not public';

/** A resolver that knows only the names given, like a DNS server the attacker controls. */
function resolver(names: Record<string, string[]>): ResolveHost {
  return async (host) => {
    const ips = names[host];
    if (!ips) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return ips.map((address) => ({ address, family: net.isIP(address) }));
  };
}

let f: FakeUpstream;
let other: FakeUpstream;
let port: number;
beforeAll(async () => {
  other = await fakeUpstream(() => ({ text: 'internal secrets' }));
  f = await fakeUpstream(
    routes({
      'GET /file.txt': (req) => ({
        headers: { 'content-type': 'text/plain' },
        text: `hello from ${req.headers.host} as ${req.headers['user-agent']}`,
      }),
      'GET /big': () => ({ body: Buffer.alloc(5000, 1) }),
      'GET /bomb': () => ({ headers: { 'content-encoding': 'gzip' }, body: zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024)) }),
      'GET /gz': () => ({ headers: { 'content-encoding': 'gzip' }, body: zlib.gzipSync(Buffer.from('unzipped')) }),
      'GET /slow': () => ({ delayMs: 2000, text: 'late' }),
      'GET /to-other': () => ({ status: 302, headers: { location: `${other.url}/` } }),
      'GET /to-metadata': () => ({ status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }),
      'GET /to-rebind': () => ({ status: 307, headers: { location: 'http://rebind.example/' } }),
      'GET /to-ftp': () => ({ status: 302, headers: { location: 'ftp://example.com/x' } }),
      'GET /to-self': () => ({ status: 302, headers: { location: '/file.txt' } }),
      'GET /loop/:n': (_req, p) => ({ status: 302, headers: { location: `/loop/${Number(p.n) + 1}` } }),
    }),
  );
  port = Number(new URL(f.url).port);
});
afterAll(async () => {
  await f.close();
  await other.close();
});

describe('isPublicAddress', () => {
  test.each([
    ['127.0.0.1', false],
    ['127.255.1.2', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['fc00::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    ['::ffff:0:127.0.0.1', false], // IPv4-translated
    ['::ffff:0:a9fe:a9fe', false],
    ['[::ffff:0:7f00:1]', false],
    ['64:ff9b::169.254.169.254', false],
    ['64:ff9b:1::808:808', false], // local-use NAT64: refused whatever it carries
    ['64:ff9b:1:ffff::1', false],
    ['::127.0.0.1', false], // IPv4-compatible
    ['::8.8.8.8', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false], // Teredo, client 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', false], // Teredo, client 10.0.0.1
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', false], // Teredo via a private server
    ['[::1]', false],
    ['fe80::1%eth0', false],
    ['not-an-ip', false],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['172.32.0.1', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['::ffff:0:8.8.8.8', true],
    ['64:ff9b::8.8.8.8', true],
    ['2002:808:808::1', true],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true], // Teredo, client 8.8.8.8
    ['2001:db9::1', true],
  ])('%s → %s', (ip, pub) => expect(isPublicAddress(ip)).toBe(pub));
});

describe('refused before any connection', () => {
  test.each([['ftp://example.com/file'], ['file:///etc/passwd'], ['javascript:alert(1)'], ['not a url'], [''], ['//example.com/x']])(
    'non-http(s) %p → 400',
    async (url) => {
      const e = await apiError(fetchUrl(url));
      expect(e).toMatchObject({ status: 400, message: 'Invalid value for url: must be an http(s) URL' });
    },
  );

  test.each([
    ['http://127.0.0.1:PORT/file.txt'],
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://[::1]:PORT/file.txt'],
    ['http://[::ffff:127.0.0.1]:PORT/file.txt'],
    ['http://0.0.0.0:PORT/file.txt'],
    ['http://2130706433:PORT/file.txt'], // 127.0.0.1 written as one number
    ['http://10.0.0.1/'],
  ])('%s → 400', async (template) => {
    const before = f.calls.length;
    const e = await apiError(fetchUrl(template.replace('PORT', String(port)), { timeoutMs: 2000 }));
    expect(e).toMatchObject({ status: 400, message: PRIVATE });
    expect(f.calls.length).toBe(before);
  });

  test('a public-looking name that resolves to loopback is refused after resolution, in the words of a name not found', async () => {
    const resolve = resolver({ 'cdn.example.com': ['127.0.0.1'], 'mixed.example.com': ['93.184.216.34', '127.0.0.1'] });
    for (const host of ['cdn.example.com', 'mixed.example.com', 'nowhere.example.com']) {
      const e = await apiError(fetchUrl(`http://${host}:${port}/file.txt`, { resolve }));
      expect(e.message).toBe(UNREACHABLE);
    }
    expect(await apiError(fetchUrl(`http://localhost:${port}/file.txt`))).toMatchObject({ status: 400, message: UNREACHABLE });
    expect(f.calls.filter((c) => c.headers.host?.includes('example.com'))).toHaveLength(0);
  });
});

describe('fetching', () => {
  test('the connection goes to the address that was checked, under the name asked for', async () => {
    const resolve = resolver({ 'files.example.com': ['127.0.0.1'] });
    const r = await fetchUrl(`http://files.example.com:${port}/file.txt`, { resolve, policy: () => true, userAgent: 'uua-test' });
    expect(r.bytes.toString()).toBe(`hello from files.example.com:${port} as uua-test`);
    expect(r.contentType).toBe('text/plain');
    expect(r.finalUrl).toBe(`http://files.example.com:${port}/file.txt`);
  });

  test('allowPrivate lets the first hop reach the loopback fake', async () => {
    const r = await fetchUrl(`${f.url}/file.txt`, { allowPrivate: true });
    expect(r.bytes.toString()).toMatch(/^hello from 127\.0\.0\.1/);
  });

  test('gzip answers are decompressed', async () => {
    expect((await fetchUrl(`${f.url}/gz`, { allowPrivate: true })).bytes.toString()).toBe('unzipped');
  });

  test('non-2xx → 400 naming the status', async () => {
    const e = await apiError(fetchUrl(`${f.url}/nope`, { allowPrivate: true }));
    expect(e).toMatchObject({ status: 400, message: 'Could not fetch url: it answered 404' });
  });

  test('larger than maxBytes → 413, by Content-Length or while decompressing', async () => {
    const e = await apiError(fetchUrl(`${f.url}/big`, { allowPrivate: true, maxBytes: 1000 }));
    expect(e).toMatchObject({ status: 413, message: 'The file at url is larger than 0.00095 MB' });
    const bomb = await apiError(fetchUrl(`${f.url}/bomb`, { allowPrivate: true, maxBytes: 1024 * 1024 }));
    expect(bomb).toMatchObject({ status: 413, message: 'The file at url is larger than 1 MB' });
  });

  test('slower than the timeout → 504', async () => {
    const started = Date.now();
    const e = await apiError(fetchUrl(`${f.url}/slow`, { allowPrivate: true, timeoutMs: 200 }));
    expect(e).toMatchObject({ status: 504, message: 'Fetching url timed out' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test('refused port or unknown host → 400 unreachable', async () => {
    const srv = net.createServer();
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const closed = (srv.address() as net.AddressInfo).port;
    await new Promise((ok) => srv.close(ok));
    const msg = UNREACHABLE;
    expect(await apiError(fetchUrl(`http://127.0.0.1:${closed}/`, { allowPrivate: true }))).toMatchObject({ status: 400, message: msg });
    expect(await apiError(fetchUrl('http://no-such-host.example/', { resolve: resolver({}) }))).toMatchObject({
      status: 400,
      message: msg,
    });
  });
});

describe('redirects are checked hop by hop', () => {
  test('allowPrivate covers the first hop only: a redirect to another private address is refused', async () => {
    const e = await apiError(fetchUrl(`${f.url}/to-other`, { allowPrivate: true }));
    expect(e.message).toBe(PRIVATE);
    expect(other.calls).toHaveLength(0);
    expect((await apiError(fetchUrl(`${f.url}/to-self`, { allowPrivate: true }))).message).toBe(PRIVATE);
  });

  test('a redirect to the metadata address is refused', async () => {
    const e = await apiError(fetchUrl(`${f.url}/to-metadata`, { allowPrivate: true, timeoutMs: 2000 }));
    expect(e).toMatchObject({ status: 400, message: PRIVATE });
  });

  test('a redirect to a name that resolves to a private address is refused', async () => {
    const resolve = resolver({ 'public.example.com': ['127.0.0.1'], 'rebind.example': ['10.0.0.5'] });
    const policy = (ip: string, hop: number) => isPublicAddress(ip) || (hop === 0 && ip === '127.0.0.1');
    const e = await apiError(fetchUrl(`http://public.example.com:${port}/to-rebind`, { resolve, policy }));
    expect(e.message).toBe(UNREACHABLE);
  });

  test('a redirect to a non-http scheme is refused', async () => {
    const e = await apiError(fetchUrl(`${f.url}/to-ftp`, { allowPrivate: true }));
    expect(e).toMatchObject({ status: 400, message: 'Could not fetch url: it redirected to a non-http(s) URL' });
  });

  test('allowed redirects are followed (finalUrl), at most 5', async () => {
    const everywhere = () => true;
    const r = await fetchUrl(`${f.url}/to-other`, { policy: everywhere });
    expect(r.bytes.toString()).toBe('internal secrets');
    expect(r.finalUrl).toBe(`${other.url}/`);
    const loop = await apiError(fetchUrl(`${f.url}/loop/1`, { policy: everywhere }));
    expect(loop).toMatchObject({ status: 400, message: 'Could not fetch url: too many redirects' });
    expect(f.calls.filter((c) => c.path.startsWith('/loop/'))).toHaveLength(6);
  });
});
