// A variant under a cap (features/media/fit.ts): maxBytes keeps, of each kind, the largest media that fits;
// `for` a messenger applies its cap; nothing fits → 422 media_too_large naming the smallest on offer. The
// sizes are the files' own, learnt from a CDN on loopback.
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { fakeCdn, type FakeCdn } from '../../helpers/fake-cdn.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { mp3, mp4 } from '../../helpers/media-files.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) FakeBrowser/1.0';
const HD = Buffer.concat([mp4, Buffer.alloc(300_000, 1)]);
const SD = Buffer.concat([mp4, Buffer.alloc(100_000, 2)]);

let cdn: FakeCdn;
let tikwm: FakeUpstream;
let t: TestApp;

beforeAll(async () => {
  cdn = await fakeCdn({
    files: {
      '/v/hd.mp4': { bytes: HD, type: 'video/mp4' },
      '/v/sd.mp4': { bytes: SD, type: 'video/mp4' },
      '/a/1.mp3': { bytes: mp3, type: 'audio/mpeg' },
    },
    referer: 'https://www.tikwm.com/',
    userAgent: UA,
  });
  tikwm = await fakeUpstream(() => ({
    json: {
      code: 0,
      data: {
        title: 'Scout',
        hdplay: cdn.link('/v/hd.mp4', 60_000),
        play: cdn.link('/v/sd.mp4', 60_000),
        music: cdn.link('/a/1.mp3', 60_000),
      },
    },
  }));
  t = await testApp({ UPSTREAM_TIKWM_URL: tikwm.url, UPSTREAM_TIKWM_MEDIA_USER_AGENT: UA, MEDIA_FACTS: 'true', MEDIA_CACHE_TTL: '10m' });
});
afterAll(async () => {
  await t.close();
  await Promise.all([cdn.close(), tikwm.close()]);
});

const ask = (q: Record<string, string | number>) =>
  request(t.app)
    .get('/api/v1/downloaders/dl-d')
    .query({ apikey: t.key, url: TT, ...q });
const kinds = (res: request.Response) =>
  res.body.data.medias.map((m: { type: string; quality: string; bytes: number }) => [m.type, m.quality, m.bytes]);

test('without a cap every media is offered', async () => {
  const res = await ask({});
  expect(kinds(res)).toEqual([
    ['video', 'hd', HD.length],
    ['video', 'sd', SD.length],
    ['audio', null, mp3.length],
  ]);
});

test('maxBytes keeps the largest of each kind that fits', async () => {
  expect(kinds(await ask({ maxBytes: 200_000 }))).toEqual([
    ['video', 'sd', SD.length],
    ['audio', null, mp3.length],
  ]);
  expect(kinds(await ask({ maxBytes: 1_000_000 }))).toEqual([
    ['video', 'hd', HD.length],
    ['audio', null, mp3.length],
  ]);
});

test('a kept media’s link streams that very file', async () => {
  const res = await ask({ maxBytes: 200_000 });
  const got = await request(t.app).head(new URL(res.body.data.medias[0].url as string).pathname);
  expect(got.status).toBe(200);
  expect(got.headers['content-length']).toBe(String(SD.length));
});

test('for=telegram applies its 20 MB cap; with maxBytes too, the smaller one', async () => {
  expect(kinds(await ask({ for: 'telegram' }))[0]).toEqual(['video', 'hd', HD.length]);
  expect(kinds(await ask({ for: 'whatsapp', maxBytes: 200_000 }))[0]).toEqual(['video', 'sd', SD.length]);
});

test('nothing fits → 422 media_too_large naming the smallest on offer', async () => {
  const res = await ask({ maxBytes: 500 });
  expect(res.status).toBe(422);
  expect(res.body).toEqual({
    success: false,
    error: `No media of this post fits in 500 bytes (0.5 KB); the smallest on offer is ${mp3.length} bytes (0.6 KB)`,
    code: 'media_too_large',
  });
});

test('a messenger the service does not know is a 400', async () => {
  const res = await ask({ for: 'icq' });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('bad_input');
});
