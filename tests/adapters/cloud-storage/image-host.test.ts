// cloud-storage/image-host: an image from a multipart file, base64 (bare or data: URI) or a URL through the
// SSRF guard; sniffed from its bytes, measured from its header, answered in imgbb's shape, served back
// with safe headers, deletable by its delete_url, kept across a restart and gone after its expiration.
import { PNG } from 'pngjs';
import request from 'supertest';
import { testApp } from '../../helpers/app.js';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';

const PATH = '/api/v1/cloud-storage/image-host';
const local = (url: string) => new URL(url).pathname;

function png(width: number, height: number): Buffer {
  const img = new PNG({ width, height });
  img.data.fill(200);
  return PNG.sync.write(img);
}

/** Just enough of each format for sniffing and the header reader: these are headers, not decodable images. */
const SAMPLES: Record<string, { bytes: Buffer; mime: string; ext: string; width: number; height: number }> = {
  gif: {
    bytes: Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x03, 0x00, 0x02, 0x00, 0x80, 0, 0]), Buffer.alloc(30)]),
    mime: 'image/gif',
    ext: 'gif',
    width: 3,
    height: 2,
  },
  jpeg: {
    bytes: Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.from('JFIF\0', 'latin1'),
      Buffer.from([1, 1, 0, 0, 1, 0, 1, 0, 0]),
      Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x78, 0x00, 0xa0, 0x03]),
      Buffer.alloc(40),
    ]),
    mime: 'image/jpeg',
    ext: 'jpg',
    width: 160,
    height: 120,
  },
  webp: {
    bytes: (() => {
      const b = Buffer.alloc(40);
      b.write('RIFF', 0, 'latin1');
      b.writeUInt32LE(32, 4);
      b.write('WEBPVP8X', 8, 'latin1');
      b.writeUInt32LE(10, 16);
      b.writeUIntLE(639, 24, 3);
      b.writeUIntLE(479, 27, 3);
      return b;
    })(),
    mime: 'image/webp',
    ext: 'webp',
    width: 640,
    height: 480,
  },
  bmp: {
    bytes: (() => {
      const b = Buffer.alloc(64);
      b.write('BM', 0, 'latin1');
      b.writeUInt32LE(64, 2);
      b.writeUInt32LE(54, 10);
      b.writeUInt32LE(40, 14);
      b.writeInt32LE(5, 18);
      b.writeInt32LE(-7, 22);
      b.writeUInt16LE(1, 26);
      b.writeUInt16LE(24, 28);
      return b;
    })(),
    mime: 'image/bmp',
    ext: 'bmp',
    width: 5,
    height: 7,
  },
};

// The images given by URL come from a site of pictures, not from an upstream: no variable names it.
const suite = upstreamSuite({
  endpoint: 'cloud-storage/image-host',
  upstreams: {
    pics: {
      configured: false,
      routes: {
        'GET /pics/cat.png': () => ({ body: png(12, 9), headers: { 'content-type': 'image/png' } }),
        'GET /pics/lies.png': () => ({ text: '<html>not an image</html>', headers: { 'content-type': 'image/png' } }),
        'GET /pics/huge.png': () => ({ body: Buffer.alloc(33 * 1024 * 1024, 1), headers: { 'content-type': 'image/png' } }),
        'GET /pics/to-metadata': () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }),
      },
    },
  },
});
const { fake } = suite;

test('a multipart PNG: imgbb shape with numbers as strings, served back with safe headers', async () => {
  const bytes = png(64, 48);
  const res = await request(suite.t.app)
    .post(PATH)
    .field('apikey', suite.t.key)
    .field('name', 'holiday')
    .attach('image', bytes, { filename: 'x.bin', contentType: 'text/html' });
  expect(res.status).toBe(200);
  const d = res.body.data;
  expectMatchesSchema('cloud-storage/image-host', d);
  expect(d).toMatchObject({ title: 'holiday', width: '64', height: '48', size: String(bytes.length), expiration: '0', expires_at: null });
  expect(d.image).toMatchObject({ filename: 'holiday.png', name: 'holiday', mime: 'image/png', extension: 'png' });
  expect(d.url).toBe(`http://127.0.0.1:3999/i/${d.id}.png`);
  expect(d.url_viewer).toBe(`http://127.0.0.1:3999/i/${d.id}`);
  expect(d.display_url).toBe(d.url);

  const img = await request(suite.t.app).get(local(d.url)).buffer(true);
  expect(img.status).toBe(200);
  expect(img.headers['content-type']).toBe('image/png');
  expect(img.headers['x-content-type-options']).toBe('nosniff');
  expect(img.headers['content-security-policy']).toMatch(/sandbox/);
  expect(Buffer.compare(img.body as Buffer, bytes)).toBe(0);

  const viewer = await request(suite.t.app).get(local(d.url_viewer));
  expect(viewer.status).toBe(200);
  expect(viewer.headers['content-type']).toMatch(/^text\/html/);
  expect(viewer.headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(viewer.text).toContain(`src="/i/${d.id}.png"`);
});

test.each(Object.entries(SAMPLES))('%s is sniffed and measured from its bytes', async (_name, s) => {
  const res = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: s.bytes.toString('base64') });
  expect(res.status).toBe(200);
  const d = res.body.data;
  expectMatchesSchema('cloud-storage/image-host', d);
  expect(d).toMatchObject({ width: String(s.width), height: String(s.height) });
  expect(d.image).toMatchObject({ mime: s.mime, extension: s.ext, filename: `image.${s.ext}` });
  const img = await request(suite.t.app).get(local(d.url)).buffer(true);
  expect(img.headers['content-type']).toBe(s.mime);
});

test('a base64 image of several megabytes fits in a JSON body (the body limit follows the upload limit), its key outside it', async () => {
  // A PNG padded with a large trailing chunk: ~3 MB of bytes, ~4 MB as base64.
  const big = Buffer.concat([png(2, 2), Buffer.alloc(3 * 1024 * 1024, 7)]);
  const res = await request(suite.t.app)
    .post(PATH)
    .set('X-API-Key', suite.t.key)
    .send({ image: big.toString('base64') });
  expect(res.status).toBe(200);
  expect(res.body.data.size).toBe(String(big.length));
  // With the key only in the body, no more than MAX_BODY_KB is read before it (docs/decisions/no-work-before-a-key.md).
  const inBody = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: big.toString('base64') });
  expect(inBody.status).toBe(413);
  expect(inBody.body.error).toMatch(/^Request body is too large to read without a key: send the key in the X-API-Key header/);
});

test('base64 as a data: URI, with an expiration', async () => {
  const before = Date.now();
  const res = await request(suite.t.app)
    .post(PATH)
    .type('form')
    .send({ apikey: suite.t.key, image: `data:image/png;base64,${png(3, 4).toString('base64')}`, expiration: '600' });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ width: '3', height: '4', expiration: '600' });
  expect(Math.abs(Date.parse(res.body.data.expires_at) - before - 600_000)).toBeLessThan(5000);
});

test('a URL is fetched through the guard and named after its path', async () => {
  const res = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: `${fake.url}/pics/cat.png` });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ width: '12', height: '9', title: 'cat' });
  expect(res.body.data.image.filename).toBe('cat.png');
});

test.each([
  ['text sent as base64', Buffer.from('just some text, not pixels').toString('base64'), 'Invalid value for image: not an image'],
  [
    'an SVG (active content)',
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64'),
    'Invalid value for image: not an image',
  ],
  ['HTML labelled image/png', 'URL:/pics/lies.png', 'Invalid value for image: not an image'],
  ['a PDF', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n').toString('base64'), 'Invalid value for image: not an image'],
  ['neither base64 nor a URL', 'this is not base64!', 'Invalid value for image: must be a multipart file, base64 data or an http(s) URL'],
  ['another scheme', 'ftp://example.com/cat.png', 'Invalid value for image: a URL must use http or https'],
  ['a non-base64 data: URI', 'data:image/png,rawbytes', 'Invalid value for image: a data: URI must be base64-encoded'],
])('%s is a 400', async (_what, image, message) => {
  const value = image.startsWith('URL:') ? fake.url + image.slice(4) : image;
  const res = await request(suite.t.app).post(PATH).send({ apikey: suite.t.key, image: value });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: message });
});

test('an uploaded non-image is refused and not kept', async () => {
  const before = (await import('node:fs')).readdirSync(`${suite.t.dataDir}/blobs`).length;
  const res = await request(suite.t.app)
    .post(PATH)
    .field('apikey', suite.t.key)
    .attach('image', Buffer.from('<html><script>x</script></html>'), 'evil.png');
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for image: not an image');
  expect((await import('node:fs')).readdirSync(`${suite.t.dataDir}/blobs`).length).toBe(before);
});

test.each([
  ['59', 'Invalid value for expiration: must be between 60 and 15552000'],
  ['15552001', 'Invalid value for expiration: must be between 60 and 15552000'],
  ['soon', 'Invalid value for expiration: must be an integer'],
])('expiration=%s is a 400', async (expiration, message) => {
  const res = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: png(1, 1).toString('base64'), expiration });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe(message);
});

test('over 32 MB is a 413: multipart (engine limit) and by URL (guard)', async () => {
  const big = Buffer.alloc(32 * 1024 * 1024 + 1, 7);
  const up = await request(suite.t.app).post(PATH).field('apikey', suite.t.key).attach('image', big, 'big.png');
  expect(up.status).toBe(413);
  expect(up.body.success).toBe(false);
  const byUrl = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: `${fake.url}/pics/huge.png` });
  expect(byUrl.status).toBe(413);
});

test('base64 over 32 MB is a 413 too', async () => {
  // The adapter's own check, called directly: the engine's body limit stops such a body before it.
  const { readImageInput } = await import('../../../adapters/cloud-storage/_image-input.js');
  const b64 = 'A'.repeat(Math.ceil(((32 * 1024 * 1024 + 3) * 4) / 3 / 4) * 4);
  await expect(readImageInput(b64, {} as never)).rejects.toMatchObject({ status: 413 });
});

test('loopback and metadata URLs are refused when private fetches are not allowed', async () => {
  await suite.withApp({ env: { ALLOW_PRIVATE_FETCH: 'false' } }, async (guarded) => {
    for (const url of [`${fake.url}/pics/cat.png`, 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/x.png']) {
      const res = await guarded.post({ image: url });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Invalid value for image: private, loopback/);
    }
    // A name is not told apart from one that resolves to nothing: no map of the deployment's own names.
    const named = await guarded.post({ image: 'http://localhost:9/x.png' });
    expect(named.status).toBe(400);
    expect(named.body.error).toBe('Could not fetch image URL: host not found, unreachable or not public');
  });
});

test('a redirect to the metadata address is refused even when the first hop is allowed', async () => {
  const res = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: `${fake.url}/pics/to-metadata` });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatch(/private, loopback/);
});

test('delete_url asks for confirmation, then deletes; a wrong token deletes nothing', async () => {
  const res = await request(suite.t.app)
    .post(PATH)
    .send({ apikey: suite.t.key, image: png(2, 2).toString('base64') });
  const d = res.body.data;
  const del = local(d.delete_url);
  expect((await request(suite.t.app).post(del.replace(/[^/]+$/, 'f'.repeat(32)))).status).toBe(404);
  const confirm = await request(suite.t.app).get(del);
  expect(confirm.status).toBe(200);
  expect(confirm.text).toContain('<form method="post">');
  expect((await request(suite.t.app).get(local(d.url))).status).toBe(200);
  expect((await request(suite.t.app).post(del)).status).toBe(200);
  expect((await request(suite.t.app).get(local(d.url))).status).toBe(404);
  expect((await request(suite.t.app).get(local(d.url_viewer))).status).toBe(404);
});

test('an image survives a restart, and is gone after its expiration', async () => {
  const first = await testApp();
  const res = await request(first.app)
    .post(PATH)
    .send({ apikey: first.key, image: png(5, 5).toString('base64'), expiration: '60' });
  expect(res.status).toBe(200);
  await first.close();
  const second = await testApp({}, { dataDir: first.dataDir });
  try {
    const url = local(res.body.data.url);
    expect((await request(second.app).get(url)).status).toBe(200);
    const realNow = Date.now;
    Date.now = () => realNow() + 61_000;
    try {
      await second.api.blobs.sweep();
      expect((await request(second.app).get(url)).status).toBe(404);
    } finally {
      Date.now = realNow;
    }
  } finally {
    await second.close();
  }
});

describe('forwarding to imgbb when the operator configured a key', () => {
  let answer: FakeResponse;
  const forwarding = upstreamSuite({
    endpoint: 'cloud-storage/image-host',
    upstreams: { imgbb: { keys: 'imgbb-test-key', routes: { 'POST /1/upload': () => answer } } },
  });
  const { fake: imgbb, fixture } = forwarding;
  beforeEach(() => {
    answer = { json: fixture('upload.json') };
  });

  test('the image goes to imgbb with the key, name and expiration; the answer keeps our shape', async () => {
    const bytes = png(64, 48);
    const res = await request(forwarding.t.app)
      .post(PATH)
      .field('apikey', forwarding.t.key)
      .field('name', 'holiday')
      .field('expiration', '600')
      .attach('image', bytes, 'a.png');
    expectAnswer(res, 'imgbb', 'cloud-storage/image-host');
    expect(res.body.data).toMatchObject({
      id: '2ndCYJK',
      url: 'https://i.ibb.co/w04Prt6/holiday.png',
      expiration: '600',
      expires_at: '2023-11-14T22:23:20.000Z',
    });
    expect(res.body.data.thumb).toBeUndefined();
    expect(imgbb.calls).toHaveLength(1);
    const call = imgbb.calls[0];
    expect(call.query.get('key')).toBe('imgbb-test-key');
    expect(call.query.get('expiration')).toBe('600');
    const form = new URLSearchParams(call.body.toString());
    expect(form.get('name')).toBe('holiday');
    expect(Buffer.compare(Buffer.from(form.get('image')!, 'base64'), bytes)).toBe(0);
    expect(JSON.stringify(res.body)).not.toContain('imgbb-test-key');
  });

  test('a non-image never reaches imgbb', async () => {
    const res = await request(forwarding.t.app)
      .post(PATH)
      .send({ apikey: forwarding.t.key, image: Buffer.from('plain text').toString('base64') });
    expect(res.status).toBe(400);
    expect(imgbb.calls).toHaveLength(0);
  });

  test('imgbb down: the service hosts the image itself', async () => {
    answer = { status: 502, json: { status_code: 502 } };
    const res = await request(forwarding.t.app)
      .post(PATH)
      .send({ apikey: forwarding.t.key, image: png(2, 3).toString('base64') });
    expectAnswer(res, 'embedded');
    expect(res.body.data.url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/i\//);
  });

  test('imgbb refusing the request is a 4xx, not hidden', async () => {
    answer = { status: 400, json: fixture('error-invalid-key.json') };
    const res = await request(forwarding.t.app)
      .post(PATH)
      .send({ apikey: forwarding.t.key, image: png(2, 3).toString('base64') });
    expect(res.status).toBe(400);
    expect(res.body.error).not.toContain('imgbb-test-key');
  });

  test('an imgbb answer without image data counts as a failure: hosted here too', async () => {
    answer = { json: { success: true, status: 200, data: {} } };
    const res = await request(forwarding.t.app)
      .post(PATH)
      .send({ apikey: forwarding.t.key, image: png(2, 3).toString('base64') });
    expectAnswer(res, 'embedded', 'cloud-storage/image-host');
  });
});
