// The facts of each media (features/media/facts.ts): its size and its type sniffed from its first bytes,
// learnt with one small ranged GET per item, with the provider's CDN headers; unknown stays null; a cached
// answer keeps them, so its repeat asks the CDN nothing.
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { fakeCdn, type FakeCdn } from '../../helpers/fake-cdn.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { mp3, mp4 } from '../../helpers/media-files.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) FakeBrowser/1.0';
const VIDEO = Buffer.concat([mp4, Buffer.alloc(50_000, 9)]);

let cdn: FakeCdn;
let tikwm: FakeUpstream;
let t: TestApp;
/** The sound's path on the CDN (a missing one: 404). */
let musicPath = '/a/1.bin';

beforeAll(async () => {
  cdn = await fakeCdn({
    // The sound is served under a name that says nothing, and as octet-stream: its type comes from its bytes.
    files: { '/v/1.mp4': { bytes: VIDEO, type: 'video/mp4' }, '/a/1.bin': { bytes: mp3, type: 'application/octet-stream' } },
    referer: 'https://www.tikwm.com/',
    userAgent: UA,
  });
  tikwm = await fakeUpstream(() => ({
    json: {
      code: 0,
      data: {
        title: 'Scout',
        duration: 15,
        play: cdn.link('/v/1.mp4', 60_000),
        music: cdn.link(musicPath, 60_000),
        author: { unique_id: 'scout' },
      },
    },
  }));
  t = await testApp({ UPSTREAM_TIKWM_URL: tikwm.url, UPSTREAM_TIKWM_MEDIA_USER_AGENT: UA, MEDIA_FACTS: 'true', MEDIA_CACHE_TTL: '10m' });
});
afterAll(async () => {
  await t.close();
  await Promise.all([cdn.close(), tikwm.close()]);
});
beforeEach(() => {
  cdn.requests.length = 0;
  musicPath = '/a/1.bin';
});

const ask = (q: string) =>
  request(t.app)
    .get('/api/v1/downloaders/dl-d')
    .query({ apikey: t.key, url: `${TT}?q=${q}` });

test('each media has its size and its sniffed type, from one ranged GET each', async () => {
  const res = await ask('1');
  expect(res.status).toBe(200);
  expect(res.body.data.medias).toMatchObject([
    { type: 'video', bytes: VIDEO.length, mime: 'video/mp4', width: null, height: null, duration: 15 },
    { type: 'audio', bytes: mp3.length, mime: 'audio/mpeg', width: null, height: null, duration: null },
  ]);
  expect(cdn.requests.map((r) => `${r.method} ${r.path} ${r.range} ${r.status}`).sort()).toEqual([
    'GET /a/1.bin bytes=0-4099 206',
    'GET /v/1.mp4 bytes=0-4099 206',
  ]);
});

test('a file its host does not serve is said to be unknown, and the answer stands', async () => {
  musicPath = '/a/gone.mp3';
  const res = await ask('2');
  expect(res.status).toBe(200);
  expect(res.body.data.medias[1]).toMatchObject({ type: 'audio', bytes: null, mime: null });
  expect(res.body.data.medias[0]).toMatchObject({ bytes: VIDEO.length, mime: 'video/mp4' });
});

test('a repeat answered from the cache keeps the facts and asks the CDN nothing', async () => {
  const first = await ask('3');
  const seen = cdn.requests.length;
  const second = await ask('3');
  expect(second.body.metadata.cached).toBe(true);
  expect(second.body.data.medias.map((m: { bytes: number }) => m.bytes)).toEqual(
    first.body.data.medias.map((m: { bytes: number }) => m.bytes),
  );
  expect(cdn.requests).toHaveLength(seen);
});
