// gen-models/image-01, audio-01 and video-01 against a loopback Pollinations: the request forms of
// catalog/upstreams.yaml, the bytes sniffed (a JSON error inside a 200 is a 502, or a 400 when the prompt
// was turned down), hosted for a day and served back byte for byte at data.url, or sent raw for a
// matching Accept header; the key rules apply as for chat.
import { buffer } from 'node:stream/consumers';
import { pino } from 'pino';
import request from 'supertest';
import type { HostedBlobs } from '../../../features/hosting/blobs.js';
import { openBlobs } from '../../helpers/blob-store.js';
import { parseDuration } from '../../../engine/duration.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { createUpstreams } from '../../../engine/upstream/client.js';
import { isReply } from '../../../engine/types.js';
import type { FakeRequest, FakeResponse } from '../../helpers/fake-upstream.js';
import { jpeg, mp3, mp4, png } from '../../helpers/media-files.js';
import { upstreamSuite, type AppOptions, type Caller } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import audio01 from '../../../adapters/gen-models/audio-01.js';
import image01 from '../../../adapters/gen-models/image-01.js';

const POOL = 'sk_pool_media_0001';
const CALLER = 'sk_caller_media_0002';

let image: (req: FakeRequest) => FakeResponse;
let audio: (req: FakeRequest) => FakeResponse;
/** The chat completions answer, for audio-01 in chat mode. */
let chatAnswer: () => FakeResponse;
const s = upstreamSuite({
  upstreams: {
    pollinations: {
      keys: POOL,
      routes: {
        'GET /image/:prompt': (req) => image(req),
        'GET /audio/:prompt': (req) => audio(req),
        'POST /v1/chat/completions': () => chatAnswer(),
      },
    },
  },
});
const { fake, fixture } = s;
beforeEach(() => {
  image = (req) =>
    req.query.get('model') === 'veo'
      ? { headers: { 'content-type': 'video/mp4' }, body: mp4 }
      : { headers: { 'content-type': 'image/png' }, body: png };
  audio = () => ({ headers: { 'content-type': 'audio/mpeg' }, body: mp3 });
  chatAnswer = () => ({ json: fixture('chat.json') });
});

const post = (endpoint: string, body: Record<string, string>, app: Caller = s) => app.post(body, `gen-models/${endpoint}`);
const binary = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  const stream = res as unknown as NodeJS.ReadableStream;
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};
/** GET a hosted URL's path through the app, as raw bytes. */
const fetchHosted = (url: string) => request(s.t.app).get(new URL(url).pathname).buffer(true).parse(binary);
/** An app of its own (its own key pool): with the pooled key, or with none. */
const POOLED: AppOptions = {};
const NO_POOL: AppOptions = { env: { UPSTREAM_POLLINATIONS_KEYS: undefined } };

function expectDayExpiry(expiresAt: string) {
  const ms = Date.parse(expiresAt) - Date.now();
  expect(ms).toBeGreaterThan(86_400_000 - 60_000);
  expect(ms).toBeLessThanOrEqual(86_400_000);
}

describe('image-01', () => {
  test('GET /image/{prompt} with flux 1024×1024 nologo; the image is hosted and served back byte for byte', async () => {
    const res = await post('image-01', { q: 'a cat in space' });
    expectAnswer(res, 'pollinations');
    const call = fake.calls[0];
    expect(call.path).toBe('/image/a%20cat%20in%20space');
    expect(Object.fromEntries(call.query)).toEqual({ model: 'flux', width: '1024', height: '1024', nologo: 'true' });
    expect(call.headers.authorization).toBe(`Bearer ${POOL}`);
    const d = res.body.data;
    expect(d).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3999\/media\/[A-Za-z0-9]{8}\.png$/),
      content_type: 'image/png',
      bytes: png.length,
      expires_at: expect.any(String),
      model: 'flux',
    });
    expectDayExpiry(d.expires_at);
    expectMatchesSchema('gen-models/image-01', d);
    const hosted = await fetchHosted(d.url);
    expect(hosted.status).toBe(200);
    expect(hosted.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(hosted.body as Buffer, png)).toBe(0);
  });

  test('the type is read from the bytes, not the header', async () => {
    image = () => ({ headers: { 'content-type': 'image/jpeg' }, body: png });
    const res = await post('image-01', { q: 'a dog' });
    expect(res.body.data.content_type).toBe('image/png');
    image = () => ({ headers: { 'content-type': 'application/octet-stream' }, body: jpeg });
    const jpg = await post('image-01', { q: 'a dog' });
    expect(jpg.body.data).toMatchObject({ content_type: 'image/jpeg', url: expect.stringMatching(/\.jpg$/) });
  });

  test.each(['image/png', 'image/*'])('Accept: %s → the raw image', async (accept) => {
    const res = await post('image-01', { q: 'a fox' }).set('Accept', accept).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(res.body as Buffer, png)).toBe(0);
  });

  test('the prompt is one encoded path segment', async () => {
    await post('image-01', { q: 'red/blue? 100% ü #1' });
    expect(fake.calls[0].path).toBe(`/image/${encodeURIComponent('red/blue? 100% ü #1')}`);
  });

  test('bad prompts: dots only, over 2000 characters, blank', async () => {
    expect((await post('image-01', { q: '..' })).body.error).toBe('Invalid value for q: must describe what to generate');
    expect((await post('image-01', { q: 'x'.repeat(2001) })).body.error).toBe('Invalid value for q: must be at most 2000 characters');
    expect((await post('image-01', { q: ' ' })).body.error).toBe('Missing required parameter: q');
    expect(fake.calls).toHaveLength(0);
  });

  test('a JSON error inside a 200 is a 502; one saying the prompt was flagged is a 400', async () => {
    image = () => ({ json: fixture('error-500.json') });
    expectFailure(await post('image-01', { q: 'a cat' }), { status: 502, code: 'upstream_failed' });
    image = () => ({ json: fixture('error-400-prompt.json') });
    const flagged = await post('image-01', { q: 'a cat' });
    expect(flagged.status).toBe(400);
    expect(flagged.body.error).toBe('The upstream provider rejected the prompt');
  });

  test('not an image: HTML under an image type, text, an empty body → 502', async () => {
    for (const a of [
      { headers: { 'content-type': 'image/jpeg' }, body: Buffer.from('<html><body>Cloudflare</body></html>') },
      { text: 'queue full' },
      { headers: { 'content-type': 'image/png' }, body: Buffer.alloc(0) },
    ] as FakeResponse[]) {
      image = () => a;
      expectFailure(await post('image-01', { q: 'a cat' }), { status: 502, code: 'upstream_failed' });
    }
  });

  test('HTTP errors: 400 prompt → 400, 400 model → 502, 404 → 502, 500 → 502 with no retry', async () => {
    image = () => ({ status: 400, json: fixture('error-400-prompt.json') });
    expect((await post('image-01', { q: 'a cat' })).status).toBe(400);
    image = () => ({ status: 400, json: fixture('error-400-model.json') });
    expectFailure(await post('image-01', { q: 'a cat' }), { status: 502, code: 'upstream_failed' });
    image = () => ({ status: 404, text: 'Not Found' });
    expectFailure(await post('image-01', { q: 'a cat' }), { status: 502, code: 'upstream_failed' });
    fake.calls.length = 0;
    image = () => ({ status: 500, json: fixture('error-500.json') });
    expectFailure(await post('image-01', { q: 'a cat' }), { status: 502, code: 'upstream_failed' });
    expect(fake.calls).toHaveLength(1);
  });

  test('429 on the only pooled key → 503 with Retry-After', async () => {
    await s.withApp(POOLED, async (app) => {
      image = () => ({ status: 429, headers: { 'retry-after': '20' }, json: { error: 'rate limited' } });
      expectFailure(await post('image-01', { q: 'a cat' }, app), { status: 503, code: 'upstream_busy' });
    });
  });

  test('no pooled key: the caller key pays; refused → 400 naming upstream_key', async () => {
    await s.withApp(NO_POOL, async (app) => {
      const ok = await post('image-01', { q: 'a cat', upstream_key: CALLER }, app);
      expect(ok.status).toBe(200);
      expect(fake.calls[0].headers.authorization).toBe(`Bearer ${CALLER}`);
      image = () => ({ status: 402, json: fixture('error-402.json') });
      const refused = await post('image-01', { q: 'a cat', upstream_key: CALLER }, app);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('Invalid value for upstream_key: rejected by the upstream provider');
    });
  });

  test('slow upstream → 504', async () => {
    s.failWith = { delayMs: 2000, headers: { 'content-type': 'image/png' }, body: png };
    await expect(image01({ q: 'a cat', upstream_key: CALLER }, shortTimeoutCtx('pollinations', fake.url, '200ms'))).rejects.toMatchObject({
      status: 504,
    });
  });
});

describe('audio-01', () => {
  test('GET /audio/{text}?voice=nova by default; the MP3 is hosted and served back', async () => {
    const res = await post('audio-01', { q: 'Hello world' });
    expect(res.status).toBe(200);
    expect(fake.calls[0].path).toBe('/audio/Hello%20world');
    expect(Object.fromEntries(fake.calls[0].query)).toEqual({ voice: 'nova' });
    const d = res.body.data;
    expect(d).toEqual({
      url: expect.stringMatching(/\/media\/[A-Za-z0-9]{8}\.mp3$/),
      content_type: 'audio/mpeg',
      bytes: mp3.length,
      expires_at: expect.any(String),
      voice: 'nova',
    });
    expectDayExpiry(d.expires_at);
    expectMatchesSchema('gen-models/audio-01', d);
    const hosted = await fetchHosted(d.url);
    expect(hosted.headers['content-type']).toBe('audio/mpeg');
    expect(Buffer.compare(hosted.body as Buffer, mp3)).toBe(0);
  });

  test.each(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'sage', 'shimmer', 'verse'])('voice %s', async (voice) => {
    const res = await post('audio-01', { q: 'hi', voice });
    expect(res.status).toBe(200);
    expect(fake.calls[0].query.get('voice')).toBe(voice);
    expect(res.body.data.voice).toBe(voice);
  });

  test('an unknown voice → 400 listing the voices', async () => {
    const res = await post('audio-01', { q: 'hi', voice: 'robot' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'Invalid value for voice: must be one of alloy, ash, ballad, coral, echo, fable, onyx, nova, sage, shimmer, verse',
    );
    expect(fake.calls).toHaveLength(0);
  });

  test('Accept: audio/mpeg → the raw MP3', async () => {
    const res = await post('audio-01', { q: 'hi' }).set('Accept', 'audio/mpeg').buffer(true).parse(binary);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(Buffer.compare(res.body as Buffer, mp3)).toBe(0);
  });

  test('a JSON answer instead of audio → 502', async () => {
    audio = () => ({ json: fixture('error-500.json') });
    expectFailure(await post('audio-01', { q: 'hi' }), { status: 502, code: 'upstream_failed' });
  });

  describe('chat mode (settings.audio.mode: chat)', () => {
    const log = pino({ level: 'silent' });
    let blobs: HostedBlobs;
    beforeAll(async () => {
      ({ blobs } = await openBlobs());
    });
    afterAll(() => blobs.close());

    function chatCtx(url: string) {
      const cfg = loadCatalog(loadConfig({}).catalogDir).upstreams.pollinations;
      const settings = { ...cfg.settings, audio: { ...(cfg.settings?.audio as object), mode: 'chat' } };
      const upstream = createUpstreams(
        { pollinations: { ...cfg, settings } },
        { UPSTREAM_POLLINATIONS_URL: url, UPSTREAM_POLLINATIONS_KEYS: POOL },
        { userAgent: 'test', log },
      );
      return shortTimeoutCtx('pollinations', url, '5s', { upstream, blobs });
    }

    test('POST chat with openai-audio and the voice; the base64 MP3 is hosted', async () => {
      const answer = JSON.stringify(fixture('audio-chat.json')).replace('__MP3_BASE64__', mp3.toString('base64'));
      chatAnswer = () => ({ headers: { 'content-type': 'application/json' }, text: answer });
      const out = await audio01({ q: 'Hello there', voice: 'echo' }, chatCtx(fake.url));
      expect(fake.calls[0].json()).toEqual({
        model: 'openai-audio',
        modalities: ['text', 'audio'],
        audio: { voice: 'echo', format: 'mp3' },
        messages: [{ role: 'user', content: 'Hello there' }],
      });
      expect(isReply(out)).toBe(true);
      if (!isReply(out)) return;
      expect(out.data).toMatchObject({ content_type: 'audio/mpeg', bytes: mp3.length, voice: 'echo' });
      const id = /\/media\/([A-Za-z0-9]+)\.mp3$/.exec(String(out.data.url))![1];
      expect(Buffer.compare(await buffer((await blobs.read(id))!), mp3)).toBe(0);
    });

    test('a chat answer without audio → 502', async () => {
      chatAnswer = () => ({ json: fixture('chat.json') });
      await expect(audio01({ q: 'hi', voice: 'nova' }, chatCtx(fake.url))).rejects.toMatchObject({ status: 502 });
    });
  });
});

describe('video-01', () => {
  test('GET /image/{prompt}?model=veo → the MP4 is hosted and served back', async () => {
    const res = await post('video-01', { q: 'a drone over the sea' });
    expect(res.status).toBe(200);
    expect(fake.calls[0].path).toBe('/image/a%20drone%20over%20the%20sea');
    expect(Object.fromEntries(fake.calls[0].query)).toEqual({ model: 'veo' });
    const d = res.body.data;
    expect(d).toEqual({
      url: expect.stringMatching(/\/media\/[A-Za-z0-9]{8}\.mp4$/),
      content_type: 'video/mp4',
      bytes: mp4.length,
      expires_at: expect.any(String),
      model: 'veo',
    });
    expectMatchesSchema('gen-models/video-01', d);
    const hosted = await fetchHosted(d.url);
    expect(hosted.headers['content-type']).toBe('video/mp4');
    expect(Buffer.compare(hosted.body as Buffer, mp4)).toBe(0);
  });

  test('Accept: video/mp4 → the raw video', async () => {
    const res = await post('video-01', { q: 'waves' }).set('Accept', 'video/mp4').buffer(true).parse(binary);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(Buffer.compare(res.body as Buffer, mp4)).toBe(0);
  });

  test('an image where a video was asked for → 502', async () => {
    image = () => ({ headers: { 'content-type': 'image/png' }, body: png });
    expectFailure(await post('video-01', { q: 'waves' }), { status: 502, code: 'upstream_failed' });
  });

  test('the upstream waits at least 300 s, inside a longer endpoint budget', () => {
    const catalog = loadCatalog(loadConfig({}).catalogDir);
    const upstreamMs = parseDuration(catalog.upstreams.pollinations.timeout ?? '30s');
    const endpoint = catalog.endpoints.find((e) => e.id === 'gen-models/video-01')!;
    expect(upstreamMs).toBeGreaterThanOrEqual(300_000);
    expect(parseDuration(endpoint.timeout ?? '30s')).toBeGreaterThan(upstreamMs);
    expect(catalog.upstreams.pollinations.retries).toBe(0);
  });

  test('no retry: a 500 is tried once', async () => {
    image = () => ({ status: 500, json: fixture('error-500.json') });
    expectFailure(await post('video-01', { q: 'waves' }), { status: 502, code: 'upstream_failed' });
    expect(fake.calls).toHaveLength(1);
  });
});
