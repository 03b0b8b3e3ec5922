// Media links on this service (features/media/): a downloader's answer names each media by
// PUBLIC_URL/media/<token>, and that link streams the file from a CDN that refuses the caller's own
// requests (it wants tikwm's Referer and a browser's User-Agent) and expires its links after a few
// seconds; HEAD and Range pass through; an expired upstream link is asked again once; tokens tampered
// with, expired or sealed by another secret are refused; a revoked key's links stop; a rotated secret
// keeps live links working; the bounds per plan answer 429.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { fakeCdn, type FakeCdn } from '../../helpers/fake-cdn.js';
import { testApp, KEYS, type TestApp } from '../../helpers/app.js';
import { mp4 } from '../../helpers/media-files.js';
import { hashKey } from '../../../engine/access/keystore.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) FakeBrowser/1.0';
const FILE = Buffer.concat([mp4, Buffer.alloc(64 * 1024, 9)]);
const CDN_TTL_MS = 1500;

let cdn: FakeCdn;
/** The file the provider's next answer links to. */
let playPath = '/v/1.mp4';
let tikwm: FakeUpstream;
const apps: TestApp[] = [];

beforeAll(async () => {
  cdn = await fakeCdn({
    files: { '/v/1.mp4': { bytes: FILE, type: 'video/mp4' }, '/v/slow.mp4': { bytes: FILE, type: 'video/mp4', stallMs: 1000 } },
    referer: 'https://www.tikwm.com/',
    userAgent: UA,
  });
  // Every answer hands out a new CDN link that dies CDN_TTL_MS later, as tikwm's do (sooner).
  tikwm = await fakeUpstream(() => ({
    json: {
      code: 0,
      msg: 'success',
      data: { title: 'Scout: the dog / day #1', play: cdn.link(playPath, CDN_TTL_MS), author: { unique_id: 'scout' } },
    },
  }));
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await Promise.all([cdn.close(), tikwm.close()]);
});
beforeEach(() => {
  playPath = '/v/1.mp4';
  cdn.requests.length = 0;
  tikwm.calls.length = 0;
});

async function app(env: Record<string, string> = {}, dataDir?: string): Promise<TestApp> {
  const made = await testApp(
    { UPSTREAM_TIKWM_URL: tikwm.url, UPSTREAM_TIKWM_MEDIA_USER_AGENT: UA, UPSTREAM_POLICIES: 'off', MEDIA_CACHE_TTL: 'off', ...env },
    { dataDir },
  );
  apps.push(made);
  return made;
}

/** The answer's media, as the caller sees them. */
async function medias(t: TestApp, key = t.key): Promise<Array<{ url: string; sourceUrl: string | null; type: string }>> {
  const res = await request(t.app).get('/api/v1/downloaders/dl-d').query({ apikey: key, url: TT });
  expect(res.status).toBe(200);
  return res.body.data.medias;
}

const pathOf = (link: string) => new URL(link).pathname;

describe('a downloader answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });

  test('names each media by a link on this service, the provider own link kept as sourceUrl', async () => {
    const [m] = await medias(t);
    expect(m.url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/media\/[A-Za-z0-9_-]{40,}$/);
    expect(m.sourceUrl).toMatch(new RegExp(`^${cdn.url}/v/1\\.mp4\\?exp=\\d+$`));
    // The CDN refuses the caller who follows its own link.
    const direct = await fetch(m.sourceUrl!);
    expect(direct.status).toBe(403);
  });

  test('the link streams the file, with its type, length and a clean file name', async () => {
    const [m] = await medias(t);
    const res = await request(t.app)
      .get(pathOf(m.url))
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['content-length']).toBe(String(FILE.length));
    expect(res.headers['content-disposition']).toBe('attachment; filename="Scout-the-dog-day-1-1.mp4"');
    expect(Buffer.compare(res.body as Buffer, FILE)).toBe(0);
    expect(cdn.requests.at(-1)).toEqual({ method: 'GET', path: '/v/1.mp4', status: 200 });
  });

  test('fetching a link is not metered again: the call that made it was', async () => {
    const remaining = async () => {
      const res = await request(t.app).get('/api/v1/downloaders/dl-d').query({ apikey: t.key, url: TT });
      return { left: Number(res.headers['x-ratelimit-remaining']), link: pathOf(res.body.data.medias[0].url as string) };
    };
    const first = await remaining();
    for (let i = 0; i < 3; i++) expect((await request(t.app).head(first.link)).status).toBe(200);
    expect((await remaining()).left).toBe(first.left - 1);
  });

  test('HEAD tells the length without the bytes', async () => {
    const [m] = await medias(t);
    const res = await request(t.app).head(pathOf(m.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(FILE.length));
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(cdn.requests.at(-1)).toMatchObject({ method: 'HEAD', status: 200 });
  });

  test('a Range is passed on: 206 with the bytes asked', async () => {
    const [m] = await medias(t);
    const res = await request(t.app)
      .get(pathOf(m.url))
      .set('Range', 'bytes=100-199')
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 100-199/${FILE.length}`);
    expect(res.headers['content-length']).toBe('100');
    expect(Buffer.compare(res.body as Buffer, FILE.subarray(100, 200))).toBe(0);
  });

  test('a range past the end is 416 as the CDN says', async () => {
    const [m] = await medias(t);
    const res = await request(t.app)
      .get(pathOf(m.url))
      .set('Range', `bytes=${FILE.length + 10}-`);
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${FILE.length}`);
  });

  test('an upstream link that died is asked for again, once, and the stream goes on', async () => {
    const [m] = await medias(t);
    expect(tikwm.calls).toHaveLength(1);
    await new Promise((r) => setTimeout(r, CDN_TTL_MS + 200));
    const first = await request(t.app).head(pathOf(m.url));
    expect(first.status).toBe(200);
    expect(tikwm.calls).toHaveLength(2);
    expect(cdn.requests.map((r) => r.status)).toEqual([403, 200]);
    // The fresh link is kept: the next request asks the provider nothing.
    const second = await request(t.app).head(pathOf(m.url));
    expect(second.status).toBe(200);
    expect(tikwm.calls).toHaveLength(2);
  });

  test('a tampered token is refused in the envelope', async () => {
    const [m] = await medias(t);
    const p = pathOf(m.url);
    const flipped = p.slice(0, -3) + (p.at(-3) === 'A' ? 'B' : 'A') + p.slice(-2);
    for (const bad of [flipped, `/media/${'x'.repeat(64)}`, `${p.slice(0, 60)}`]) {
      const res = await request(t.app).get(bad);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
    expect(cdn.requests).toHaveLength(0);
  });

  test('POST on a link is 405 naming GET and HEAD', async () => {
    const [m] = await medias(t);
    const res = await request(t.app).post(pathOf(m.url));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('links in time', () => {
  test('a link past MEDIA_LINK_TTL is 410 link_expired', async () => {
    const t = await app({ MEDIA_LINK_TTL: '1s' });
    const [m] = await medias(t);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await request(t.app).get(pathOf(m.url));
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ success: false, code: 'link_expired' });
    expect(cdn.requests).toHaveLength(0);
  });

  test('a rotated secret keeps live links working; a link sealed by another secret is refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-media-'));
    const OLD = 'o'.repeat(40);
    const NEW = 'n'.repeat(40);
    const before = await app({ MEDIA_LINK_SECRETS: OLD }, dir);
    const [m] = await medias(before);
    await before.close();
    apps.splice(apps.indexOf(before), 1);

    const rotated = await app({ MEDIA_LINK_SECRETS: `${NEW},${OLD}` }, dir);
    expect((await request(rotated.app).head(pathOf(m.url))).status).toBe(200);
    const [fresh] = await medias(rotated);
    await rotated.close();
    apps.splice(apps.indexOf(rotated), 1);

    const stranger = await app({ MEDIA_LINK_SECRETS: NEW });
    expect((await request(stranger.app).head(pathOf(fresh.url))).status).toBe(200);
    const refused = await request(stranger.app).get(pathOf(m.url));
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ success: false, code: 'not_found' });
  });
});

describe('keys and plans', () => {
  test("a revoked key's links stop", async () => {
    const t = await app();
    const { key, record } = await t.api.keys.issue('premium', 'bot');
    const [m] = await medias(t, key);
    expect((await request(t.app).head(pathOf(m.url))).status).toBe(200);
    await t.api.keys.revoke(record.id);
    const res = await request(t.app).get(pathOf(m.url));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'forbidden' });
  });

  test("a plan's bytes a day are bound: past them, 429 until tomorrow", async () => {
    const t = await app({ MEDIA_DAILY_MB_PREMIUM: '1' });
    const [m] = await medias(t, KEYS.premium);
    const day = new Date().toISOString().slice(0, 10);
    // The key file's premium key: its id is its hash's first 12 characters (engine/access/keystore.ts).
    await t.api.store.write([
      { kind: 'add', coll: 'media-bytes', id: `${hashKey(KEYS.premium).slice(0, 12)}:${day}`, add: { bytes: 1024 * 1024 }, ttlMs: 60_000 },
    ]);
    const res = await request(t.app).get(pathOf(m.url));
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, code: 'quota' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Another plan's key is not bound by it.
    const [e] = await medias(t, KEYS.enterprise);
    expect((await request(t.app).head(pathOf(e.url))).status).toBe(200);
  });

  test('the streams a key has open at once are bound by its plan', async () => {
    const t = await app({ MEDIA_STREAMS_PREMIUM: '1' });
    playPath = '/v/slow.mp4';
    const [m] = await medias(t);
    // One stream held open: the client reads its headers and waits.
    const held = await fetch(`${await listening(t)}${pathOf(m.url)}`);
    expect(held.status).toBe(200);
    const second = await request(t.app).get(pathOf(m.url));
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ success: false, code: 'quota' });
    await held.body?.cancel();
    // Another key of another plan streams meanwhile.
    const [e] = await medias(t, KEYS.enterprise);
    expect((await request(t.app).head(pathOf(e.url))).status).toBe(200);
  });
});

/** The app on a real port, for a stream a test holds open. */
async function listening(t: TestApp): Promise<string> {
  const server = http.createServer(t.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  apps.push({ ...t, close });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
