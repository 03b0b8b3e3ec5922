// utilities/tr's last provider, MyMemory (`GET /get?q=…&langpair=en|it`), against loopback fakes of it and of
// gtx: the language pair (autodetect without `from`, the detected language read from its best match), its
// errors inside an HTTP 200 (a used-up quota is a 503 with its Retry-After, never a translation; an invalid
// language a 400; over 200 or 429 its named wait is the Retry-After and the hold), its 500-byte bound, its pooled key; asked when gtx is off or failing (source: mymemory),
// not when gtx answers; both failing; shape drift → 502 upstream_changed; slowness.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import trMymemory from '../../../adapters/utilities/tr-mymemory.js';

const s = upstreamSuite({
  endpoint: 'utilities/tr',
  upstreams: {
    libretranslate: { routes: {} },
    gtx: { routes: { 'GET /translate_a/single': () => ({ json: fixture('gtx', 'single-dj.json') }) } },
    mymemory: {
      routes: {
        'GET /get': (r) => {
          const q = r.query.get('q');
          const answer = r.query.get('langpair')?.startsWith('autodetect|') ? 'autodetect-fr-en.json' : 'get-en-it.json';
          return { json: fixture('mymemory', answer), delayMs: q === 'slow' ? 200 : 0 };
        },
      },
    },
  },
});
const { fixture } = s;
const { gtx, mymemory } = s.fakes;
// gtx has a public default: `off`, so that MyMemory is the one provider (LibreTranslate has no default).
const mmOnly = s.app({ without: ['libretranslate', 'gtx'], env: { UPSTREAM_GTX_URL: 'off' } });
const gtxFirst = s.app({ without: ['libretranslate'] });
// With the upstream policies on (as in production), so that a hold is kept.
const guarded = () => s.app({ without: ['libretranslate', 'gtx'], env: { UPSTREAM_GTX_URL: 'off', UPSTREAM_POLICIES: 'on' } });
const held200 = guarded();
const held429 = guarded();

describe('MyMemory alone (gtx off, no LibreTranslate)', () => {
  test('the documented example: langpair en|it, the given source reported as given', async () => {
    const res = await mmOnly.get({ text: 'Hello World!', from: 'en', to: 'it' });
    expectAnswer(res, 'mymemory', 'utilities/tr');
    expect(res.body.data).toEqual({ text: 'Hello World!', from: 'en', to: 'it', translation: 'Ciao Mondo!' });
    expect(mymemory.calls[0].path).toBe('/get');
    expect(Object.fromEntries(mymemory.calls[0].query)).toEqual({ q: 'Hello World!', langpair: 'en|it' });
  });

  test('without from: autodetect, and the language of its best match reported', async () => {
    const res = await mmOnly.get({ text: 'Bonjour ! Comment ça va ?', to: 'en' });
    expectAnswer(res, 'mymemory', 'utilities/tr');
    expect(res.body.data).toEqual({ text: 'Bonjour ! Comment ça va ?', from: 'fr', to: 'en', translation: 'Hello! How are you?' });
    expect(mymemory.calls[0].query.get('langpair')).toBe('autodetect|en');
  });

  test('a used-up daily quota → 503 upstream_busy with its Retry-After; the warning is never a translation', async () => {
    mymemory.failWith = { json: fixture('mymemory', 'quota-finished.json') };
    const res = await mmOnly.get({ text: 'Quota', from: 'en', to: 'it' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(res.headers['retry-after']).toBe(String(18 * 3600 + 10 * 60 + 39));
    expect(JSON.stringify(res.body)).not.toMatch(/WARNING|FREE TRANSLATIONS|USAGELIMITS/i);
  });

  // Each on an app of its own: the hold one of them puts on MyMemory must not answer for the other.
  test.each([
    ['200', 200, held200],
    ['429 (no Retry-After)', 429, held429],
  ])('the quota answer over HTTP %s: its named wait is the Retry-After, and MyMemory is held that long', async (_, status, app) => {
    mymemory.failWith = { status, json: fixture('mymemory', 'quota-finished.json') };
    const calls = mymemory.calls.length;
    const res = await app.get({ text: `Quota ${status}`, from: 'en', to: 'it' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(mymemory.calls.length).toBe(calls + 1); // asked, not refused by an earlier hold
    const wait = 18 * 3600 + 10 * 60 + 39;
    expect(res.headers['retry-after']).toBe(String(wait));
    // Held: the next call is not sent, and is told the rest of the same wait.
    mymemory.failWith = undefined;
    const again = await app.get({ text: `Quota ${status} again`, from: 'en', to: 'it' });
    expectFailure(again, { status: 503, code: 'upstream_busy' });
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(wait - 5);
    expect(mymemory.calls.length).toBe(calls + 1);
  });

  test('the warning alone (no quotaFinished, status 200) is still a used-up quota, an hour without a time', async () => {
    mymemory.failWith = {
      json: {
        responseData: { translatedText: 'MYMEMORY WARNING: YOU USED ALL AVAILABLE FREE TRANSLATIONS FOR TODAY' },
        responseStatus: 200,
      },
    };
    const res = await mmOnly.get({ text: 'Quota 2', from: 'en', to: 'it' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(res.headers['retry-after']).toBe('3600');
  });

  test('an invalid language (its 403 inside a 200) → 400 without its words', async () => {
    mymemory.failWith = { json: fixture('mymemory', 'invalid-target.json') };
    const res = await mmOnly.get({ text: 'Hello', from: 'en', to: 'xx' });
    expectFailure(res, { status: 400, code: 'bad_input' });
    expect(res.body.error).not.toMatch(/INVALID|LANGPAIR/);
  });

  test('its 500 inside a 200 → 502', async () => {
    mymemory.failWith = { json: { responseData: { translatedText: '' }, responseStatus: 500, responseDetails: 'SERVER ERROR' } };
    expectFailure(await mmOnly.get({ text: 'Inner 500', from: 'en', to: 'it' }), { status: 502, code: 'upstream_failed' });
  });

  test('a text over its 500 bytes → 502 naming the bound; it is not asked', async () => {
    const res = await mmOnly.get({ text: 'é'.repeat(251), from: 'fr', to: 'en' });
    expectFailure(res, { status: 502, code: 'upstream_failed' });
    expect(res.body.error).toBe('MyMemory translates at most 500 bytes at a time');
    expect(mymemory.calls).toHaveLength(0);
  });

  test('the pooled key goes as `key` in the query, and never back to the caller', async () => {
    await s.withApp(
      { without: ['libretranslate', 'gtx'], env: { UPSTREAM_GTX_URL: 'off', UPSTREAM_MYMEMORY_KEYS: 'mm-key-1' } },
      async (t2) => {
        const res = await t2.get({ text: 'Hello World!', from: 'en', to: 'it' });
        expectAnswer(res, 'mymemory');
        expect(mymemory.calls.at(-1)!.query.get('key')).toBe('mm-key-1');
        expect(JSON.stringify(res.body)).not.toContain('mm-key-1');
      },
    );
  });

  test.each([
    ['no responseData', { responseStatus: 200, matches: [] }],
    ['translatedText not a string', { responseData: { translatedText: ['Ciao'] }, responseStatus: 200 }],
    ['no responseStatus', { responseData: { translatedText: 'Ciao' } }],
    ['a list', [{ translatedText: 'Ciao' }]],
  ])('its shape changed (%s) → 502 upstream_changed', async (name, json) => {
    mymemory.failWith = { json };
    expectFailure(await mmOnly.get({ text: `Drift ${name}`, from: 'en', to: 'it' }), { status: 502, code: 'upstream_changed' });
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    mymemory.failWith = f.answer;
    expectFailure(await mmOnly.get({ text: `Failing ${f.name}`, from: 'en', to: 'it' }), f);
  });

  test('slower than its timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => trMymemory({ text: 'slow', to: 'it' }, ctx), 'mymemory', mymemory.url, '50ms');
  });
});

describe('gtx first, MyMemory next', () => {
  test('gtx answers: MyMemory is not asked', async () => {
    const res = await gtxFirst.get({ text: 'Bonjour ! Comment ça va ?', to: 'en' });
    expectAnswer(res, 'gtx', 'utilities/tr');
    expect(mymemory.calls).toHaveLength(0);
  });

  test.each([
    ['answering 500', { status: 500, json: { error: 'down' } }],
    ['rate limited', { status: 429, headers: { 'retry-after': '30' }, text: 'Too Many Requests' }],
    ['in its nested-array form (drift)', { json: [[['Hello', 'Bonjour', null, null, 10]], null, 'fr'] }],
  ])('gtx %s → MyMemory answers', async (_name, answer) => {
    gtx.failWith = answer;
    const res = await gtxFirst.get({ text: `Hello World! ${_name}`, from: 'en', to: 'it' });
    expectAnswer(res, 'mymemory', 'utilities/tr');
    expect(res.body.data.translation).toBe('Ciao Mondo!');
    expect(gtx.calls.length).toBeGreaterThan(0);
    expect(mymemory.calls).toHaveLength(1);
  });

  test('both failing → 502', async () => {
    gtx.failWith = { status: 500, json: { error: 'down' } };
    mymemory.failWith = { status: 503, text: 'Service Unavailable' };
    expectFailure(await gtxFirst.get({ text: 'Both down', from: 'en', to: 'it' }), { status: 502, code: 'upstream_failed' });
    expect(mymemory.calls.length).toBeGreaterThan(0);
  });

  test('gtx failing and MyMemory drifted → 502 upstream_changed', async () => {
    gtx.failWith = { status: 500, json: { error: 'down' } };
    mymemory.failWith = { json: { result: 'Ciao' } };
    expectFailure(await gtxFirst.get({ text: 'Down and drifted', from: 'en', to: 'it' }), { status: 502, code: 'upstream_changed' });
  });
});
