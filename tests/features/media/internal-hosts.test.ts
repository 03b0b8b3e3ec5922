// No downloader answer names a host of a self-hosted upstream (catalog/upstreams.yaml's `selfHost:`
// entries): cobalt's tunnels, on the instance's own address as cobalt makes them, reach callers only as
// links on this service, with a null sourceUrl; and the link streams the tunnel.
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { mp4 } from '../../helpers/media-files.js';

const catalog = loadCatalog(loadConfig({}).catalogDir);
const downloaders = catalog.endpoints.filter((e) => e.mediaItems);
const selfHosted = Object.entries(catalog.upstreams)
  .filter(([, u]) => u.selfHost !== undefined)
  .map(([id]) => id);

const URLS: Record<string, string> = {
  'downloaders/dl-a': 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'downloaders/dl-b': 'https://www.facebook.com/reel/1234567890123456',
  'downloaders/dl-c': 'https://www.instagram.com/p/C0abcDEFghi/',
  'downloaders/dl-d': 'https://www.tiktok.com/@scout2015/video/6718335390845095173',
  'downloaders/dl-e': 'https://x.com/NASA/status/1790458410243506437',
};

let cobalt: FakeUpstream;
let t: TestApp;

beforeAll(async () => {
  // As cobalt answers: tunnels on its own API_URL, a picker for Instagram.
  cobalt = await fakeUpstream((req) =>
    req.method === 'POST'
      ? String((req.json() as { url: string }).url).includes('instagram')
        ? {
            json: { status: 'picker', picker: [{ type: 'video', url: `${cobalt.url}/tunnel?id=p1` }], audio: `${cobalt.url}/tunnel?id=a1` },
          }
        : { json: { status: 'tunnel', url: `${cobalt.url}/tunnel?id=t1`, filename: 'clip_1280x720_h264.mp4' } }
      : { headers: { 'content-type': 'video/mp4', 'content-length': String(mp4.length) }, body: mp4 },
  );
  t = await testApp({ UPSTREAM_COBALT_URL: cobalt.url, MEDIA_CACHE_TTL: 'off' });
});
afterAll(async () => {
  await t.close();
  await cobalt.close();
});

test('the catalog marks cobalt self-hosted, and every downloader names its media', () => {
  expect(selfHosted).toContain('cobalt');
  expect(downloaders.map((e) => e.id).sort()).toEqual(Object.keys(URLS));
});

test.each(Object.keys(URLS))('%s names no self-hosted upstream’s host', async (id) => {
  const res = await request(t.app).get(`/api/v1/${id}`).query({ apikey: t.key, url: URLS[id] });
  expect(res.status).toBe(200);
  const text = JSON.stringify(res.body);
  expect(text).not.toContain(new URL(cobalt.url).host);
  for (const m of res.body.data.medias) expect(m.sourceUrl).toBeNull();
  // The link streams the tunnel.
  const got = await request(t.app).head(new URL(res.body.data.medias[0].url as string).pathname);
  expect(got.status).toBe(200);
  expect(got.headers['content-length']).toBe(String(mp4.length));
});
