// utilities/tr against a loopback LibreTranslate (when UPSTREAM_LIBRETRANSLATE_URL is set: POST
// /translate with the pooled key in the JSON body, codes checked against /languages) and a loopback gtx
// endpoint otherwise (GET /translate_a/single?client=gtx&dj=1). The detected source language is reported
// when the caller gives none; failures, slowness, cache and coalescing.
import { upstreamSuite, type Caller } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import trGtx from '../../../adapters/utilities/tr-gtx.js';

const PATH = '/api/v1/utilities/tr';

const s = upstreamSuite({
  endpoint: 'utilities/tr',
  upstreams: {
    libretranslate: {
      routes: {
        'GET /languages': () => ({ json: fixture('libretranslate', 'languages.json') }),
        'POST /translate': (r) => {
          const body = r.json() as { q: string; source: string; target: string };
          if (body.q === 'slow') return { json: fixture('libretranslate', 'translate.json'), delayMs: 200 };
          return {
            json: body.source === 'auto' ? fixture('libretranslate', 'translate-auto.json') : fixture('libretranslate', 'translate.json'),
          };
        },
      },
    },
    gtx: {
      routes: {
        'GET /translate_a/single': (r) => ({ json: fixture('gtx', 'single-dj.json'), delayMs: r.query.get('q') === 'slow' ? 200 : 0 }),
      },
    },
  },
});
const { fixture } = s;
const { libretranslate: libre, gtx } = s.fakes;
const tLibre = s;
const tGtx = s.app({ without: ['libretranslate'] });
// gtx has a public default address: `off` turns it off, as an operator would.
const libreOnly = s.app({ without: ['gtx'], env: { UPSTREAM_GTX_URL: 'off' } });

const get = (t: Caller, query: Record<string, string>) => t.get(query);
const translateCalls = () => libre.calls.filter((c) => c.path === '/translate');

describe('LibreTranslate (configured)', () => {
  test('auto-detected source reported as from', async () => {
    const res = await get(tLibre, { text: 'Bonjour !', to: 'en' });
    expectAnswer(res, 'libretranslate');
    expect(res.body.data).toEqual({ text: 'Bonjour !', from: 'fr', to: 'en', translation: 'Hello!' });
    expectMatchesSchema('utilities/tr', res.body.data);
    expect(translateCalls()[0].json()).toEqual({ q: 'Bonjour !', source: 'auto', target: 'en', format: 'text' });
    expect(gtx.calls).toHaveLength(0);
  });

  test('a given source is kept and reported as given; the server gets its own spelling of the code', async () => {
    const res = await get(tLibre, { text: 'Hello world', from: 'EN', to: 'de' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ text: 'Hello world', from: 'EN', to: 'de', translation: 'Hallo Welt' });
    expect(translateCalls()[0].json()).toMatchObject({ source: 'en', target: 'de' });
  });

  test('zh-CN reaches the server as its zh-Hans', async () => {
    const res = await get(tLibre, { text: 'Hello world', from: 'en', to: 'zh-CN' });
    expect(res.status).toBe(200);
    expect(res.body.data.to).toBe('zh-CN');
    expect(translateCalls()[0].json()).toMatchObject({ source: 'en', target: 'zh-Hans' });
  });

  test('from=auto is the same as no from', async () => {
    const res = await get(tLibre, { text: 'Salut', from: 'auto', to: 'en' });
    expect(res.status).toBe(200);
    expect(res.body.data.from).toBe('fr');
  });

  test('a language the server does not know → 400 naming its codes, nothing translated', async () => {
    // Alone: with gtx configured, gtx would be asked next (a provider's limit is not the caller's error).
    const res = await get(libreOnly, { text: 'Hello', to: 'xx' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for to: must be a language code this server knows: en, fr, de, zh-Hans');
    expect(translateCalls()).toHaveLength(0);
  });

  test('the pooled key goes in the JSON body as api_key', async () => {
    await s.withApp({ without: ['gtx'], env: { UPSTREAM_LIBRETRANSLATE_KEYS: 'lt-key-1' } }, async (t2) => {
      const res = await get(t2, { text: 'Bonjour', to: 'en' });
      expect(res.status).toBe(200);
      expect(res.body.data.translation).toBe('Hello!');
      expect(translateCalls().at(-1)!.json()).toMatchObject({ q: 'Bonjour', api_key: 'lt-key-1' });
      expect(JSON.stringify(res.body)).not.toContain('lt-key-1');
    });
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get(tLibre, { text: `failing ${f.name}`, from: 'fr', to: 'en' }), f);
  });

  test('an answer without translatedText → 502', async () => {
    s.failWith = { json: { error: 'weird' } };
    expectFailure(await get(tLibre, { text: 'odd answer', from: 'fr', to: 'en' }), { status: 502, code: 'upstream_changed' });
  });

  test('a server that wants a key (403) → 503 not configured', async () => {
    s.failWith = { status: 403, json: { error: 'Visit https://portal.libretranslate.com to get an API key' } };
    // Alone: with gtx configured, the caller would get gtx's answer instead (the catalog's fallback).
    const res = await get(libreOnly, { text: 'needs key', from: 'fr', to: 'en' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'not_configured' });
    expect(res.body.error).toMatch(/UPSTREAM_LIBRETRANSLATE_KEYS/);
    expect(res.body.error).not.toMatch(/portal/);
  });
});

describe('gtx (no LibreTranslate configured)', () => {
  test('sentences joined, detected source reported', async () => {
    const res = await get(tGtx, { text: 'Bonjour ! Comment ça va ?', to: 'en' });
    expectAnswer(res, 'gtx');
    expect(res.body.data).toEqual({ text: 'Bonjour ! Comment ça va ?', from: 'fr', to: 'en', translation: 'Hello! How are you?' });
    expectMatchesSchema('utilities/tr', res.body.data);
    expect(Object.fromEntries(gtx.calls[0].query)).toEqual({
      client: 'gtx',
      sl: 'auto',
      tl: 'en',
      dt: 't',
      dj: '1',
      q: 'Bonjour ! Comment ça va ?',
    });
  });

  test('a given source is passed and reported as given', async () => {
    const res = await get(tGtx, { text: 'Bonjour', from: 'fr', to: 'zh-CN' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ from: 'fr', to: 'zh-CN' });
    expect(gtx.calls[0].query.get('sl')).toBe('fr');
    expect(gtx.calls[0].query.get('tl')).toBe('zh-CN');
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get(tGtx, { text: `failing ${f.name}`, to: 'en' }), f);
  });

  test('an answer without sentences (the nested-array form) → 502', async () => {
    s.failWith = { json: [[['Hello', 'Bonjour', null, null, 10]], null, 'fr'] };
    expectFailure(await get(tGtx, { text: 'array form', to: 'en' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    const ctx = shortTimeoutCtx('gtx', gtx.url, '50ms');
    await expect(trGtx({ text: 'slow', to: 'en' }, ctx)).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
  });
});

describe('bad input', () => {
  test.each([
    ['to not a code', { text: 'Hello', to: 'english' }, 'Invalid value for to: must be a language code such as en or zh-CN'],
    [
      'from with an underscore',
      { text: 'Hello', from: 'fr_FR', to: 'en' },
      'Invalid value for from: must be a language code such as en or zh-CN, or auto',
    ],
    ['text over 5000 characters', { text: 'x'.repeat(5001), to: 'en' }, /^Invalid value for text: /],
    ['no to', { text: 'Hello' }, 'Missing required parameter: to'],
  ])('%s → 400', async (_name, query, message) => {
    const res = await get(tGtx, query);
    expect(res.status).toBe(400);
    if (typeof message === 'string') expect(res.body.error).toBe(message);
    else expect(res.body.error).toMatch(message);
    expect(gtx.calls).toHaveLength(0);
  });
});

describe('cache', () => {
  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: tGtx.t, path: PATH, query: { text: 'cache me', to: 'de' }, upstreamCalls: () => gtx.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({
      t: tLibre.t,
      path: PATH,
      query: { text: 'slow', from: 'en', to: 'de' },
      upstreamCalls: () => translateCalls().length,
    });
  });
});
