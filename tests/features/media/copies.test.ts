// MEDIA_STORE=on (features/media/copies.ts): the first whole download of a media link is kept in the blob
// store until the link expires, and the next request for it is sent to the copy, which the CDN never sees;
// a ranged download keeps nothing. Off (the default), every request streams from the CDN.
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { fakeCdn, type FakeCdn } from '../../helpers/fake-cdn.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { mp4 } from '../../helpers/media-files.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) FakeBrowser/1.0';
const FILE = Buffer.concat([mp4, Buffer.alloc(30_000, 5)]);

let cdn: FakeCdn;
let tikwm: FakeUpstream;
const apps: TestApp[] = [];

beforeAll(async () => {
  cdn = await fakeCdn({ files: { '/v/1.mp4': { bytes: FILE, type: 'video/mp4' } }, referer: 'https://www.tikwm.com/', userAgent: UA });
  tikwm = await fakeUpstream(() => ({ json: { code: 0, data: { title: 'Scout', play: cdn.link('/v/1.mp4', 60_000) } } }));
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await Promise.all([cdn.close(), tikwm.close()]);
});
beforeEach(() => {
  cdn.requests.length = 0;
});

async function linkOn(env: Record<string, string>): Promise<{ t: TestApp; path: string }> {
  const t = await testApp({ UPSTREAM_TIKWM_URL: tikwm.url, UPSTREAM_TIKWM_MEDIA_USER_AGENT: UA, MEDIA_LINK_TTL: '1h', ...env });
  apps.push(t);
  const res = await request(t.app).get('/api/v1/downloaders/dl-d').query({ apikey: t.key, url: TT });
  return { t, path: new URL(res.body.data.medias[0].url as string).pathname };
}

const bytesOf = (t: TestApp, path: string) =>
  request(t.app)
    .get(path)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });

test('on: the first whole download is kept until the link expires, and the next is sent to the copy', async () => {
  const { t, path } = await linkOn({ MEDIA_STORE: 'on' });
  // A ranged download keeps nothing.
  expect((await request(t.app).get(path).set('Range', 'bytes=0-9')).status).toBe(206);
  expect((await request(t.app).get(path)).status).toBe(200);
  expect(cdn.requests.map((r) => r.status)).toEqual([206, 200]);

  const again = await request(t.app).get(path);
  expect(again.status).toBe(302);
  const copy = new URL(again.headers.location);
  expect(copy.pathname).toMatch(/^\/media\/[A-Za-z0-9]{8}\.mp4$/);
  const served = await bytesOf(t, copy.pathname);
  expect(served.status).toBe(200);
  expect(Buffer.compare(served.body as Buffer, FILE)).toBe(0);
  expect(cdn.requests).toHaveLength(2);

  const id = copy.pathname.slice('/media/'.length, -'.mp4'.length);
  const kept = await t.api.blobs.get(id);
  const expires = Date.parse(kept!.meta.expiresAt!);
  expect(expires).toBeGreaterThan(Date.now() + 55 * 60_000);
  expect(expires).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
});

test('off (the default): nothing is kept, every download streams from the CDN', async () => {
  const { t, path } = await linkOn({});
  for (let i = 0; i < 2; i++) expect((await request(t.app).get(path)).status).toBe(200);
  expect(cdn.requests.map((r) => r.status)).toEqual([200, 200]);
});
