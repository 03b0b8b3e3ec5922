// Short and share links (engine/pipeline/steps/short-links.ts): each family is followed, through the SSRF
// guard, to the post it stands for, and the provider is asked for that post; a link that leads off the
// endpoint's hosts is a 400 naming the host, one that leads to a private address a 400 too, and neither
// reaches the provider. The short hosts resolve to a fake on loopback (the first hop may reach it, as
// ALLOW_PRIVATE_FETCH lets tests do; a later hop may not).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../../helpers/fake-upstream.js';
import { testApp, type TestApp } from '../../../helpers/app.js';
import type { ResolveHost } from '../../../../engine/upstream/guarded-fetch.js';

const SHORT_HOSTS = ['vm.tiktok.com', 'vt.tiktok.com', 't.co', 'fb.watch', 'instagr.am'];
let port = 0;
/** Where each short link leads: `host path` → Location. */
const LEADS: Record<string, () => string> = {
  'vm.tiktok.com /ZMabc123/': () => 'https://www.tiktok.com/@scout2015/video/6718335390845095173?_r=1',
  'vt.tiktok.com /ZSxyz789/': () => 'https://www.tiktok.com/@scout2015/video/6718335390845095174',
  't.co /AbCdEf': () => 'https://x.com/NASA/status/1790458410243506437',
  'fb.watch /abcDEF123/': () => 'https://www.facebook.com/reel/1234567890123456',
  'instagr.am /p/C0abcDEFghi/': () => 'https://www.instagram.com/p/C0abcDEFghi/',
  't.co /evil': () => 'https://evil.example/x',
  'vm.tiktok.com /private/': () => `http://vt.tiktok.com:${port}/ZSxyz789/`,
  'fb.watch /nowhere/': () => '',
};

let shortServer: http.Server;
let cobalt: FakeUpstream;
let t: TestApp;
const hits: string[] = [];

const resolve: ResolveHost = async (name) => {
  if (SHORT_HOSTS.includes(name)) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  shortServer = http.createServer((req, res) => {
    const key = `${(req.headers.host ?? '').split(':')[0]} ${req.url}`;
    hits.push(key);
    const to = LEADS[key]?.();
    if (to) res.writeHead(301, { location: to }).end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
  });
  await new Promise<void>((r) => shortServer.listen(0, '127.0.0.1', r));
  port = (shortServer.address() as AddressInfo).port;
  cobalt = await fakeUpstream(() => ({
    json: { status: 'tunnel', url: 'http://cobalt.internal/tunnel?id=1', filename: 'clip_1280x720.mp4' },
  }));
  t = await testApp({ UPSTREAM_COBALT_URL: cobalt.url, MEDIA_CACHE_TTL: 'off' }, { resolve });
});
afterAll(async () => {
  await t.close();
  await cobalt.close();
  shortServer.closeAllConnections();
  await new Promise((r) => shortServer.close(r));
});
beforeEach(() => {
  cobalt.calls.length = 0;
  hits.length = 0;
});

const short = (host: string, path: string) => `http://${host}:${port}${path}`;
const ask = (endpoint: string, url: string) => request(t.app).get(`/api/v1/downloaders/${endpoint}`).query({ apikey: t.key, url });
const askedFor = () => [...new Set(cobalt.calls.map((c) => (c.json() as { url: string }).url))];

test.each([
  ['dl-d', 'vm.tiktok.com', '/ZMabc123/'],
  ['dl-d', 'vt.tiktok.com', '/ZSxyz789/'],
  ['dl-e', 't.co', '/AbCdEf'],
  ['dl-b', 'fb.watch', '/abcDEF123/'],
  ['dl-c', 'instagr.am', '/p/C0abcDEFghi/'],
])('%s: a %s link is followed and the provider asked for the post', async (endpoint, host, path) => {
  const res = await ask(endpoint, short(host, path));
  expect(res.status).toBe(200);
  expect(askedFor()).toEqual([LEADS[`${host} ${path}`]()]);
  expect(hits).toEqual([`${host} ${path}`]);
});

test('a link to the post itself is not followed', async () => {
  const res = await ask('dl-e', 'https://x.com/NASA/status/1790458410243506437');
  expect(res.status).toBe(200);
  expect(hits).toEqual([]);
});

test('a link that leads off the endpoint’s hosts is a 400 naming where it led; the provider is not asked', async () => {
  const res = await ask('dl-e', short('t.co', '/evil'));
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    success: false,
    error: 'Invalid value for url: the link leads to evil.example, which this endpoint does not take',
    code: 'bad_input',
  });
  expect(cobalt.calls).toHaveLength(0);
});

test('a hop to a private address is refused', async () => {
  const res = await ask('dl-d', short('vm.tiktok.com', '/private/'));
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for url: the short link leads to a private address');
  expect(hits).toEqual(['vm.tiktok.com /private/']);
  expect(cobalt.calls).toHaveLength(0);
});

test('a short link that does not redirect is a 400', async () => {
  const res = await ask('dl-b', short('fb.watch', '/nowhere/'));
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for url: the short link leads nowhere (fb.watch answered 200)');
});
