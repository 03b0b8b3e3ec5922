// cloud-storage/paste-host: a paste hosted by the service, its HTML page (text escaped, no script allowed)
// and raw text, pastebin's parameters and their bounds, survival across a restart, and expiry.
import request from 'supertest';
import { appForTests, testApp } from '../../helpers/app.js';
import { expectMatchesSchema } from '../../helpers/schema.js';

const PATH = '/api/v1/cloud-storage/paste-host';
const t = appForTests();

/** The path part of a link the service handed out (PUBLIC_URL is http://127.0.0.1:3999 in tests). */
const local = (url: string) => new URL(url).pathname;

test('creates a paste with defaults; the page escapes the text and the raw link returns it verbatim', async () => {
  const text = '<script>alert(1)</script>\necho "hi" && ls -la\nünïcødé ✓';
  const res = await request(t.app).post(PATH).send({ apikey: t.key, paste: text });
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  expect(res.body.source).toBe('embedded');
  const d = res.body.data;
  expectMatchesSchema('cloud-storage/paste-host', d);
  expect(d).toMatchObject({ name: 'Untitled', format: 'text', private: 0, expire: 'N', expires_at: null, size: Buffer.byteLength(text) });
  expect(d.url).toBe(`http://127.0.0.1:3999/p/${d.id}`);
  expect(d.raw_url).toBe(`${d.url}/raw`);

  const page = await request(t.app).get(local(d.url));
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['x-content-type-options']).toBe('nosniff');
  expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(page.headers['content-security-policy']).not.toMatch(/script-src/);
  expect(page.text).not.toContain('<script>alert(1)</script>');
  expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(page.text).toContain('echo &quot;hi&quot; &amp;&amp; ls -la');

  const raw = await request(t.app).get(local(d.raw_url));
  expect(raw.status).toBe(200);
  expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(raw.headers['x-content-type-options']).toBe('nosniff');
  expect(raw.text).toBe(text);
});

test('name, format, private=1 and expire=1D are kept; the unlisted page asks not to be indexed', async () => {
  const before = Date.now();
  const res = await request(t.app)
    .post(PATH)
    .type('form')
    .send({ apikey: t.key, paste: 'print("x")', name: 'My <b>script</b>', format: 'python', private: '1', expire: '1D' });
  expect(res.status).toBe(200);
  const d = res.body.data;
  expectMatchesSchema('cloud-storage/paste-host', d);
  expect(d).toMatchObject({ name: 'My <b>script</b>', format: 'python', private: 1, expire: '1D' });
  const expires = Date.parse(d.expires_at);
  expect(expires - before).toBeGreaterThanOrEqual(86_400_000 - 1000);
  expect(expires - before).toBeLessThanOrEqual(86_400_000 + 5000);
  const page = await request(t.app).get(local(d.url));
  expect(page.text).toContain('My &lt;b&gt;script&lt;/b&gt;');
  expect(page.text).toContain('language-python');
  expect(page.headers['x-robots-tag']).toMatch(/noindex/);
});

test.each([
  ['1M', 30 * 86_400],
  ['6M', 182 * 86_400],
  ['1Y', 365 * 86_400],
  ['10M', 600],
])('expire=%s lasts %i seconds (fixed-length months)', async (expire, seconds) => {
  const res = await request(t.app).post(PATH).send({ apikey: t.key, paste: 'x', expire });
  expect(res.status).toBe(200);
  const ms = Date.parse(res.body.data.expires_at) - Date.parse(new Date().toISOString());
  expect(Math.abs(ms - seconds * 1000)).toBeLessThan(10_000);
});

test.each([
  [{ private: '2' }, 'Invalid value for private: must be one of 0, 1'],
  [{ expire: '5M' }, 'Invalid value for expire: must be one of N, 10M, 1H, 1D, 1W, 2W, 1M, 6M, 1Y'],
  [{ format: 'Py Thon' }, 'Invalid value for format: must be a syntax code of 1 to 32 lower-case letters, digits or _+-'],
  [{ format: 'a'.repeat(33) }, 'Invalid value for format'],
  [{ paste: '   \n ' }, 'Invalid value for paste: must not be blank'],
  [{ paste: undefined }, 'Missing required parameter: paste'],
])('bad values are a clear 400: %j', async (bad, message) => {
  const res = await request(t.app)
    .post(PATH)
    .send({ apikey: t.key, paste: 'hello', ...bad });
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toContain(message);
});

test('a paste past the size limit is refused, not stored', async () => {
  const res = await request(t.app)
    .post(PATH)
    .send({ apikey: t.key, paste: 'x'.repeat(524_289) });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for paste: must be at most 524288 characters');
});

test('unknown and malformed paste ids are a 404, never a file outside the store', async () => {
  for (const p of ['/p/NoSuchId1', '/p/NoSuchId1/raw', '/p/..%2F..%2Fetc%2Fpasswd', '/p/%2e%2e/raw']) {
    const res = await request(t.app).get(p);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('root:');
  }
});

test('every answer is a new paste: never served from the cache', async () => {
  const a = await request(t.app).post(PATH).send({ apikey: t.key, paste: 'same' });
  const b = await request(t.app).post(PATH).send({ apikey: t.key, paste: 'same' });
  expect(a.body.data.id).not.toBe(b.body.data.id);
  expect(b.body.metadata.cached).toBe(false);
});

test('a paste survives a restart on the same DATA_DIR', async () => {
  const first = await testApp();
  const res = await request(first.app).post(PATH).send({ apikey: first.key, paste: 'kept across restarts', expire: '1W' });
  expect(res.status).toBe(200);
  await first.close();
  const second = await testApp({}, { dataDir: first.dataDir });
  try {
    const raw = await request(second.app).get(local(res.body.data.raw_url));
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('kept across restarts');
  } finally {
    await second.close();
  }
});

test('an expired paste is gone from its links and from disk', async () => {
  const res = await request(t.app).post(PATH).send({ apikey: t.key, paste: 'short-lived', expire: '10M' });
  const { id } = res.body.data;
  expect((await request(t.app).get(`/p/${id}/raw`)).status).toBe(200);
  // Travel past the expiry instead of waiting ten minutes.
  const realNow = Date.now;
  Date.now = () => realNow() + 601_000;
  try {
    expect(await t.api.blobs.sweep()).toBeGreaterThanOrEqual(1);
    expect((await request(t.app).get(`/p/${id}/raw`)).status).toBe(404);
    expect((await request(t.app).get(`/p/${id}`)).status).toBe(404);
  } finally {
    Date.now = realNow;
  }
  expect(await t.api.blobs.get(id)).toBeUndefined();
});
