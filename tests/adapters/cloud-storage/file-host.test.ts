// cloud-storage/file-host: any file, answered in gofile's shape, served back only as an attachment (never
// as active content), kept for the retention period across restarts, and gone after it.
import crypto from 'node:crypto';
import request from 'supertest';
import { appForTests, testApp } from '../../helpers/app.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';

const PATH = '/api/v1/cloud-storage/file-host';
const local = (url: string) => new URL(url).pathname;
const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');

const t = appForTests();

test('uploads a file: gofile shape, a download page and the bytes as an attachment', async () => {
  const bytes = Buffer.from('%PDF-1.4\nhello report\n%%EOF\n');
  const before = Date.now();
  const res = await request(t.app).post(PATH).field('apikey', t.key).attach('file', bytes, 'report 2024 é.pdf');
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  const d = res.body.data;
  expectMatchesSchema('cloud-storage/file-host', d);
  expect(d).toMatchObject({ fileName: 'report 2024 é.pdf', size: bytes.length, md5: md5(bytes), mimetype: 'application/pdf' });
  expect(d.downloadPage).toBe(`http://127.0.0.1:3999/f/${d.code}`);
  expect(d.directLink).toBe(`${d.downloadPage}/${encodeURIComponent('report 2024 é.pdf')}`);
  // Retention: 30 days (catalog option retentionDays).
  expect(Math.abs(Date.parse(d.expiresAt) - before - 30 * 86_400_000)).toBeLessThan(10_000);

  const page = await request(t.app).get(local(d.downloadPage));
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(page.text).toContain('report 2024 é.pdf');
  expect(page.text).toContain(md5(bytes));

  const dl = await request(t.app)
    .get(local(d.directLink))
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  expect(dl.status).toBe(200);
  expect(dl.headers['content-type']).toBe('application/octet-stream');
  expect(dl.headers['content-disposition']).toMatch(
    /^attachment; filename="report 2024 _.pdf"; filename\*=UTF-8''report%202024%20%C3%A9\.pdf$/,
  );
  expect(dl.headers['x-content-type-options']).toBe('nosniff');
  expect(Buffer.compare(dl.body as Buffer, bytes)).toBe(0);
});

test('an HTML or SVG upload is only ever served as an attachment', async () => {
  const html = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
  const res = await request(t.app)
    .post(PATH)
    .field('apikey', t.key)
    .attach('file', html, { filename: 'page.html', contentType: 'text/html' });
  expect(res.status).toBe(200);
  const dl = await request(t.app).get(local(res.body.data.directLink));
  expect(dl.headers['content-type']).toBe('application/octet-stream');
  expect(dl.headers['content-disposition']).toMatch(/^attachment;/);
  expect(dl.headers['content-security-policy']).toMatch(/sandbox/);
  // The page shows the name escaped.
  const evil = await request(t.app).post(PATH).field('apikey', t.key).attach('file', Buffer.from('x'), '<img src=x onerror=alert(1)>.txt');
  const page = await request(t.app).get(local(evil.body.data.downloadPage));
  expect(page.text).not.toContain('<img src=x');
  expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;.txt');
});

test('missing file, a file given as text, and an empty file are clear 400s', async () => {
  const none = await request(t.app).post(PATH).field('apikey', t.key);
  expect(none.status).toBe(400);
  expect(none.body.error).toBe('Missing required parameter: file');
  const text = await request(t.app).post(PATH).send({ apikey: t.key, file: 'aGVsbG8=' });
  expect(text.status).toBe(400);
  expect(text.body.error).toBe('Invalid value for file: must be a multipart file upload');
  const empty = await request(t.app).post(PATH).field('apikey', t.key).attach('file', Buffer.alloc(0), 'empty.txt');
  expect(empty.status).toBe(400);
  expect(empty.body.error).toBe('Invalid value for file: must not be empty');
});

test('a file over the upload limit is a 413', async () => {
  const res = await request(t.app)
    .post(PATH)
    .field('apikey', t.key)
    .attach('file', Buffer.alloc(32 * 1024 * 1024 + 1), 'big.bin');
  expect(res.status).toBe(413);
  expect(res.body.success).toBe(false);
});

test('a path in the uploaded name is dropped', async () => {
  const res = await request(t.app).post(PATH).field('apikey', t.key).attach('file', Buffer.from('data'), '../../etc/passwd');
  expect(res.status).toBe(200);
  expect(res.body.data.fileName).toBe('passwd');
});

test('unknown codes are a 404', async () => {
  expect((await request(t.app).get('/f/Nope1234')).status).toBe(404);
  expect((await request(t.app).get('/f/Nope1234/x.txt')).status).toBe(404);
});

test('a file survives a restart, and is gone after its retention period', async () => {
  const first = await testApp();
  const res = await request(first.app).post(PATH).field('apikey', first.key).attach('file', Buffer.from('persist me'), 'notes.txt');
  expect(res.status).toBe(200);
  await first.close();
  const second = await testApp({}, { dataDir: first.dataDir });
  try {
    const link = local(res.body.data.directLink);
    const dl = await request(second.app).get(link);
    expect(dl.status).toBe(200);
    expect(dl.text ?? (dl.body as Buffer).toString()).toBe('persist me');
    const realNow = Date.now;
    Date.now = () => realNow() + 31 * 86_400_000;
    try {
      expect(await second.api.blobs.sweep()).toBe(1);
      expect((await request(second.app).get(link)).status).toBe(404);
      expect((await request(second.app).get(local(res.body.data.downloadPage))).status).toBe(404);
    } finally {
      Date.now = realNow;
    }
  } finally {
    await second.close();
  }
});

describe('forwarding to gofile when the operator configured a token', () => {
  let answer: FakeResponse;
  const s = upstreamSuite({
    endpoint: 'cloud-storage/file-host',
    upstreams: { gofile: { keys: 'gofile-test-token', routes: { 'POST /uploadfile': () => answer } } },
  });
  const { fake: gofile, fixture } = s;
  beforeEach(() => {
    answer = { json: fixture('uploadfile.json') };
  });

  test('the file goes to gofile as multipart with the bearer token; the answer keeps our shape', async () => {
    const res = await request(s.t.app).post(PATH).field('apikey', s.t.key).attach('file', Buffer.from('test'), 'notes.txt');
    expectAnswer(res, 'gofile', 'cloud-storage/file-host');
    expect(res.body.data).toMatchObject({
      downloadPage: 'https://gofile.io/d/Abc123',
      code: 'Abc123',
      fileName: 'notes.txt',
      size: 4,
      md5: md5(Buffer.from('test')),
      expiresAt: null,
    });
    const call = gofile.calls[0];
    expect(call.headers.authorization).toBe('Bearer gofile-test-token');
    expect(call.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const body = call.body.toString('latin1');
    expect(body).toContain('Content-Disposition: form-data; name="file"; filename="notes.txt"');
    expect(body).toContain('\r\n\r\ntest\r\n--');
    expect(JSON.stringify(res.body)).not.toContain('gofile-test-token');
  });

  test.each([
    ['an error inside a 200', { json: { status: 'error-notPremium', data: {} } }],
    ['a 500', { status: 500, json: { status: 'error' } }],
  ])('gofile failing (%s): the service hosts the file itself', async (_what, failure) => {
    answer = failure;
    const res = await request(s.t.app).post(PATH).field('apikey', s.t.key).attach('file', Buffer.from('kept here'), 'here.txt');
    expectAnswer(res, 'embedded');
    expect(res.body.data.downloadPage).toMatch(/^http:\/\/127\.0\.0\.1:3999\/f\//);
  });
});
