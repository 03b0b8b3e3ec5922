// tts/generate: embedded eSpeak NG → MP3 (decoded back here with the mpg123 WASM decoder to prove it is
// real, plausible speech), voices by language and accent, the exact errors of upstreams.md §5, hosting and
// raw audio, and the google-tts path against a loopback fake speaking translate_tts.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { MPEGDecoder } from 'mpg123-decoder';
import { pino } from 'pino';
import { appForTests, type TestApp } from '../../helpers/app.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectMatchesSchema } from '../../helpers/schema.js';
import { createUpstreams } from '../../../engine/upstream/client.js';
import { ApiError } from '../../../engine/errors.js';
import { speakGoogle } from '../../../adapters/tts/_speak-google.js';
import { FIXTURES as ALL_FIXTURES } from '../../helpers/paths.js';

const FIXTURES = path.join(ALL_FIXTURES, 'google-tts');
const TONE = fs.readFileSync(path.join(FIXTURES, 'tone-0.6s.mp3'));
const SORRY = fs.readFileSync(path.join(FIXTURES, 'sorry.html'), 'utf8');

const SHORT = 'Hello world, this is a short test of the speech service.';
const LONG = [
  'The quick brown fox jumps over the lazy dog.',
  'Meanwhile, the cat watches from the window and wonders why anyone would jump over a dog at all.',
  'Speech synthesis turns written text into sound, one sentence at a time.',
  'This paragraph is long enough to be split into several pieces before it is spoken.',
].join(' ');

/** Collects any response body as bytes (supertest only buffers text and JSON by itself). */
function binary(res: unknown, done: (err: Error | null, body: Buffer) => void) {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

interface Decoded {
  seconds: number;
  sampleRate: number;
  rms: number;
  peak: number;
  errors: number;
}

async function decode(mp3: Buffer): Promise<Decoded> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const { channelData, samplesDecoded, sampleRate, errors } = decoder.decode(new Uint8Array(mp3));
    const ch = channelData[0];
    let sum = 0;
    let peak = 0;
    for (let i = 0; i < samplesDecoded; i++) {
      sum += ch[i] * ch[i];
      peak = Math.max(peak, Math.abs(ch[i]));
    }
    return {
      seconds: samplesDecoded / sampleRate,
      sampleRate,
      rms: Math.sqrt(sum / Math.max(1, samplesDecoded)),
      peak,
      errors: errors.length,
    };
  } finally {
    decoder.free();
  }
}

const t = appForTests();

const generate = (app: TestApp, body: Record<string, unknown>) =>
  request(app.app)
    .post('/api/v1/tts/generate')
    .send({ apikey: app.key, ...body });

describe('tts/generate with eSpeak NG', () => {
  let first: request.Response;

  // The first call loads the wasm engine (about half a second here, more on a loaded machine).
  test('speaks English as an MP3 that decodes to plausible, audible speech', async () => {
    const started = Date.now();
    first = await generate(t, { text: SHORT });
    const ms = Date.now() - started;
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, source: 'embedded', metadata: { cached: false } });
    expectMatchesSchema('tts/generate', first.body.data);
    const d = first.body.data;
    expect(d).toMatchObject({ voice: 'en-us', engine: 'espeak-ng', approximate: false, lang: 'en', accent: 'US' });
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/media\/[A-Za-z0-9_-]+\.mp3$/);
    const expires = Date.parse(d.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(86_000_000);
    expect(expires).toBeLessThanOrEqual(86_400_000);
    expect(d.duration_seconds).toBeGreaterThan(1);
    expect(d.duration_seconds).toBeLessThan(6);
    console.log(`tts/generate: first call (engine load + speech) took ${ms} ms for ${d.duration_seconds} s of audio`);
  }, 60_000);

  test('the hosted URL serves the same MP3 bytes, which decode', async () => {
    const res = await request(t.app).get(new URL(first.body.data.url).pathname).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    const mp3 = res.body as Buffer;
    expect(mp3.length).toBe(first.body.data.bytes);
    expect(mp3.subarray(0, 2).readUInt16BE(0) & 0xffe0).toBe(0xffe0); // an MPEG frame sync
    const audio = await decode(mp3);
    expect(audio.errors).toBe(0);
    expect(audio.sampleRate).toBe(22050);
    expect(Math.abs(audio.seconds - first.body.data.duration_seconds)).toBeLessThan(0.2);
    expect(audio.rms).toBeGreaterThan(0.01);
    expect(audio.peak).toBeGreaterThan(0.1);
  });

  test('longer text gives longer audio', async () => {
    const res = await generate(t, { text: LONG });
    expect(res.status).toBe(200);
    expect(res.body.data.duration_seconds).toBeGreaterThan(first.body.data.duration_seconds * 2.5);
    expect(res.body.data.bytes).toBeGreaterThan(first.body.data.bytes * 2.5);
  });

  test('raw audio/mpeg when the Accept header asks for it', async () => {
    const res = await request(t.app)
      .post('/api/v1/tts/generate')
      .set('Accept', 'audio/mpeg')
      .send({ apikey: t.key, text: 'Raw bytes, please.' })
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    const audio = await decode(res.body as Buffer);
    expect(audio.errors).toBe(0);
    expect(audio.seconds).toBeGreaterThan(0.5);
    expect(audio.seconds).toBeLessThan(5);
    expect(audio.rms).toBeGreaterThan(0.01);
  });

  test('parameters in the query string work too, and each call is fresh (never cached)', async () => {
    const q = { apikey: t.key, text: 'Same text twice.', lang: 'en' };
    const a = await request(t.app).post('/api/v1/tts/generate').query(q);
    const b = await request(t.app).post('/api/v1/tts/generate').query(q);
    expect(a.status).toBe(200);
    expect(b.body.metadata.cached).toBe(false);
    expect(b.body.data.url).not.toBe(a.body.data.url);
  });

  test.each([
    // lang, accent, voice, approximate, accent answered
    ['en', 'GB', 'en-gb', false, 'GB'],
    ['en', 'co.uk', 'en-gb', false, 'GB'],
    ['en', 'uk', 'en-gb', false, 'GB'],
    ['en', 'com.au', 'en-gb', true, 'AU'],
    ['en', 'ca', 'en-us', true, 'CA'],
    ['es', undefined, 'es-419', false, 'US'],
    ['es', 'MX', 'es-mx', false, 'MX'],
    ['es', 'es', 'es', false, 'ES'],
    ['fr', undefined, 'fr-fr', false, null],
    ['fr', 'CA', 'fr-fr', true, 'CA'],
    ['pt', 'BR', 'pt-br', false, 'BR'],
    ['pt', 'pt', 'pt', false, 'PT'],
    ['pt', undefined, 'pt-br', false, null],
    ['de', undefined, 'de', false, null],
    ['zh-CN', undefined, 'cmn', false, null],
    ['iw', undefined, 'he', false, null],
  ])('lang %s accent %s → voice %s', async (lang, accent, voice, approximate, answered) => {
    const res = await generate(t, { text: 'One two three.', lang, ...(accent === undefined ? {} : { accent }) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ voice, approximate, accent: answered, engine: 'espeak-ng' });
    expect(res.body.data.duration_seconds).toBeGreaterThan(0.3);
  });

  test('languages without a voice of their own are read by a related one, marked approximate', async () => {
    const res = await generate(t, { text: 'Bom día, como estás?', lang: 'gl' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      source: 'embedded',
      data: { lang: 'gl', voice: 'es', approximate: true, engine: 'espeak-ng', accent: null },
    });
  });

  test('non-Latin scripts and markup-looking text are spoken, not parsed', async () => {
    for (const [lang, text] of [
      ['ja', 'こんにちは、世界。'],
      ['ar', 'مرحبا بالعالم'],
      ['hi', 'नमस्ते दुनिया।'],
      ['en', '<voice name="de">a & b</voice> <mark name="x"/> 5 < 6'],
    ]) {
      const res = await generate(t, { text, lang });
      expect(res.status).toBe(200);
      expect(res.body.data.duration_seconds).toBeGreaterThan(0.3);
    }
  });

  test('concurrent requests are queued and all answered', async () => {
    const texts = ['First request.', 'Second request, a little longer than the first one.', 'Third.', 'Fourth request here.'];
    const all = await Promise.all(texts.map((text) => generate(t, { text })));
    for (const res of all) expect(res.status).toBe(200);
    const urls = new Set(all.map((r) => r.body.data.url));
    expect(urls.size).toBe(4);
    // Each answer is its own text: the second is the longest.
    const durations = all.map((r) => r.body.data.duration_seconds);
    expect(Math.max(...durations)).toBe(durations[1]);
  });

  describe('errors', () => {
    test('an unknown language → 400', async () => {
      const res = await generate(t, { text: 'Hi.', lang: 'xx' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'bad_input' });
      expect(res.body.error).toBe('Invalid value for lang: unsupported language "xx"; see /api/v1/tts/langlist for the 69 codes');
    });

    test('a wrong accent → 400 listing the valid ones', async () => {
      const res = await generate(t, { text: 'Hi.', lang: 'en', accent: 'FR' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid accent for en. Valid accents: AU, GB, US, CA, IN, IE, ZA, NG');
      const es = await generate(t, { text: 'Hola.', lang: 'es', accent: 'AR' });
      expect(es.body.error).toBe('Invalid accent for es. Valid accents: MX, ES, US');
    });

    test('an accent on a language without accents → 400', async () => {
      const res = await generate(t, { text: 'Hallo.', lang: 'de', accent: 'GB' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Language 'de' does not support accents");
    });

    test("the catalog's default accent US means no accent for a language without accents", async () => {
      const res = await generate(t, { text: 'Hallo.', lang: 'de', accent: 'US' });
      expect(res.status).toBe(200);
      expect(res.body.data.accent).toBeNull();
    });

    test('Khmer without google-tts → 503', async () => {
      const res = await generate(t, { text: 'សួស្តី', lang: 'km' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        success: false,
        code: 'not_configured',
        error: 'Language km needs the google-tts upstream, which is not configured',
      });
    });

    test('text: missing, blank, or too long → 400', async () => {
      const missing = await generate(t, { lang: 'en' });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('Missing required parameter: text');
      const blank = await generate(t, { text: '   \n ' });
      expect(blank.status).toBe(400);
      expect(blank.body.error).toBe('Invalid value for text: must contain something to say');
      const long = await generate(t, { text: 'a'.repeat(5001) });
      expect(long.status).toBe(400);
      expect(long.body.error).toBe('Invalid value for text: must be at most 5000 characters');
    });

    test('GET is not the method', async () => {
      const res = await request(t.app).get('/api/v1/tts/generate').query({ apikey: t.key, text: 'Hi' });
      expect(res.status).toBe(405);
    });
  });
});

describe('tts/generate with google-tts', () => {
  let answer: () => { status?: number; headers?: Record<string, string>; body?: Buffer; text?: string; delayMs?: number };
  const g = upstreamSuite({
    endpoint: 'tts/generate',
    upstreams: { 'google-tts': { routes: { 'GET /translate_tts': () => answer() } } },
  });
  const { fake } = g;
  beforeEach(() => {
    answer = () => ({ headers: { 'content-type': 'audio/mpeg' }, body: TONE });
  });

  test('Khmer goes to translate_tts; the answer is hosted and decodes', async () => {
    const res = await generate(g.t, { text: 'សួស្តី​ពិភពលោក', lang: 'km' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, source: 'google-tts' });
    expectMatchesSchema('tts/generate', res.body.data);
    expect(res.body.data).toMatchObject({
      voice: 'km',
      engine: 'google-tts',
      approximate: false,
      lang: 'km',
      accent: null,
      bytes: TONE.length,
    });
    expect(res.body.data.duration_seconds).toBeGreaterThan(0.55);
    expect(res.body.data.duration_seconds).toBeLessThan(0.7);
    expect(fake.calls).toHaveLength(1);
    const q = fake.calls[0].query;
    expect(Object.fromEntries(q)).toEqual({
      ie: 'UTF-8',
      q: 'សួស្តី​ពិភពលោក',
      tl: 'km',
      total: '1',
      idx: '0',
      textlen: String('សួស្តី​ពិភពលោក'.length),
      client: 'tw-ob',
    });
    const hosted = await request(g.t.app).get(new URL(res.body.data.url).pathname).buffer(true).parse(binary);
    expect((hosted.body as Buffer).equals(TONE)).toBe(true);
    const audio = await decode(hosted.body as Buffer);
    expect(audio.errors).toBe(0);
    expect(audio.rms).toBeGreaterThan(0.01);
  });

  test('long text is sent in pieces of at most 200 characters at word boundaries, MP3s concatenated', async () => {
    const words = Array.from({ length: 90 }, (_, i) => `word${i}`);
    const text = words.join(' '); // ~600 characters, no sentence end
    const res = await generate(g.t, { text, lang: 'tl' });
    expect(res.status).toBe(200);
    expect(fake.calls.length).toBeGreaterThanOrEqual(3);
    for (const c of fake.calls) {
      expect(c.query.get('q')!.length).toBeLessThanOrEqual(200);
      expect(c.query.get('textlen')).toBe(String(c.query.get('q')!.length));
      expect(c.query.get('tl')).toBe('tl');
    }
    expect(fake.calls.map((c) => c.query.get('q')).join(' ')).toBe(text);
    expect(res.body.data.bytes).toBe(TONE.length * fake.calls.length);
    const audio = await decode(Buffer.concat(fake.calls.map(() => TONE)));
    expect(Math.abs(audio.seconds - res.body.data.duration_seconds)).toBeLessThan(0.1);
  });

  test('the five approximated languages use google-tts when it is configured; others stay offline', async () => {
    const gl = await generate(g.t, { text: 'Bo día.', lang: 'gl' });
    expect(gl.body.data).toMatchObject({ engine: 'google-tts', voice: 'gl', approximate: false });
    expect(fake.calls).toHaveLength(1);
    const en = await generate(g.t, { text: 'Good day.', lang: 'en' });
    expect(en.body.data).toMatchObject({ engine: 'espeak-ng', voice: 'en-us' });
    expect(en.body.source).toBe('embedded');
    expect(fake.calls).toHaveLength(1);
  });

  test('429 → 503 with Retry-After', async () => {
    answer = () => ({ status: 429, headers: { 'retry-after': '7' }, text: 'Too Many Requests' });
    const res = await generate(g.t, { text: 'សួស្តី', lang: 'km' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('upstream_busy');
    expect(res.headers['retry-after']).toBe('7');
  });

  test('500 → 502; 404 → 502', async () => {
    answer = () => ({ status: 500, text: 'oops' });
    const res = await generate(g.t, { text: 'សួស្តី', lang: 'km' });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('upstream_failed');
    answer = () => ({ status: 404, text: 'Not Found' });
    const nf = await generate(g.t, { text: 'សួស្តី', lang: 'km' });
    expect(nf.status).toBe(502);
    expect(nf.body.error).toBe('The google-tts upstream did not answer with MP3 audio');
  });

  test('a 200 that is not MP3 (a captcha page) → 502, without echoing it', async () => {
    answer = () => ({ headers: { 'content-type': 'text/html' }, text: SORRY });
    const res = await generate(g.t, { text: 'សួស្តី', lang: 'km' });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('The google-tts upstream did not answer with MP3 audio');
    expect(JSON.stringify(res.body)).not.toContain('sorry');
  });

  test('slower than the upstream timeout → 504', async () => {
    // The catalog gives google-tts 15 s; a client with a short timeout proves the mapping quickly.
    answer = () => ({ delayMs: 2000, headers: { 'content-type': 'audio/mpeg' }, body: TONE });
    const silent = pino({ level: 'silent' });
    const client = createUpstreams(
      {
        'google-tts': {
          name: 'google-tts',
          docs: 'https://example.org',
          timeout: '200ms',
          retries: 0,
          settings: { path: '/translate_tts', chunkChars: 200 },
        },
      },
      { UPSTREAM_GOOGLE_TTS_URL: fake.url },
      { userAgent: 'test', log: silent },
    )('google-tts');
    const err = await speakGoogle(client, 'សួស្តី', 'km', new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 504 });
  });
});
