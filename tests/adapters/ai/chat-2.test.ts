// ai/chat-2 against a loopback Perplexity: model=auto → sonar, the other Sonar models passed through and
// anything else a 400, citations [{index, url, title}] with titles from search_results, a leading <think>
// dropped, the upstream's failures mapped, and a 503 until a key is pooled.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, type Caller } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import { pino } from 'pino';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { createUpstreams } from '../../../engine/upstream/client.js';
import chat2 from '../../../adapters/ai/chat-2.js';

const KEYS = ['pplx-test-key-one', 'pplx-test-key-two'];

let answer: (model: string) => FakeResponse;
const s = upstreamSuite({
  endpoint: 'ai/chat-2',
  upstreams: {
    perplexity: { keys: KEYS.join(','), routes: { 'POST /chat/completions': (req) => answer((req.json() as { model: string }).model) } },
  },
});
const { fake, fixture } = s;
beforeEach(() => {
  answer = (model) => ({ json: { ...fixture('sonar.json'), model } });
});

const ask = (query: Record<string, string>, app: Caller = s) => app.get(query);

describe('answers with citations', () => {
  test('model=auto asks sonar; citations are 1-based with titles from search_results, else null', async () => {
    const res = await ask({ q: 'Where were the 2024 Olympics?' });
    expectAnswer(res, 'perplexity');
    expect(fake.calls[0].json()).toEqual({ model: 'sonar', messages: [{ role: 'user', content: 'Where were the 2024 Olympics?' }] });
    expect(fake.calls[0].headers.authorization).toMatch(/^Bearer pplx-test-key-/);
    expect(res.body.data).toEqual({
      response: 'The 2024 Summer Olympics were held in Paris [1][2].',
      model: 'sonar',
      citations: [
        { index: 1, url: 'https://olympics.com/en/paris-2024', title: 'Paris 2024 Olympic Games' },
        { index: 2, url: 'https://en.wikipedia.org/wiki/2024_Summer_Olympics', title: '2024 Summer Olympics - Wikipedia' },
        { index: 3, url: 'https://www.example.org/no-title', title: null },
      ],
    });
    expectMatchesSchema('ai/chat-2', res.body.data);
  });

  test.each(['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research'])(
    'model=%s is passed through',
    async (model) => {
      const res = await ask({ q: 'hi', model });
      expect(res.status).toBe(200);
      expect((fake.calls[0].json() as { model: string }).model).toBe(model);
      expect(res.body.data.model).toBe(model);
    },
  );

  test('an answer with only search_results: citations from them; the <think> block dropped', async () => {
    answer = () => ({ json: fixture('sonar-reasoning.json') });
    const res = await ask({ q: 'How tall is Everest?', model: 'sonar-reasoning' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      response: 'Mount Everest is 8,849 m tall [1].',
      model: 'sonar-reasoning',
      citations: [{ index: 1, url: 'https://www.britannica.com/place/Mount-Everest', title: 'Mount Everest - Britannica' }],
    });
    expectMatchesSchema('ai/chat-2', res.body.data);
  });

  test('no sources at all: an empty citation list; non-http entries are skipped but keep their numbering', async () => {
    answer = () => ({
      json: { model: 'sonar', citations: ['javascript:alert(1)', 'https://ok.example/a'], choices: [{ message: { content: 'x [2]' } }] },
    });
    const res = await ask({ q: 'x' });
    expect(res.body.data.citations).toEqual([{ index: 2, url: 'https://ok.example/a', title: null }]);
    answer = () => ({ json: { model: 'sonar', choices: [{ message: { content: 'plain' } }] } });
    const bare = await ask({ q: 'y' });
    expect(bare.body.data).toEqual({ response: 'plain', model: 'sonar', citations: [] });
  });
});

describe('bad input', () => {
  test('a model outside the Sonar list is a 400 naming the allowed ones', async () => {
    const res = await ask({ q: 'hi', model: 'gpt-4o' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'Invalid value for model: must be one of auto, sonar, sonar-pro, sonar-reasoning, sonar-reasoning-pro, sonar-deep-research',
    );
    expect(fake.calls).toHaveLength(0);
  });

  test('a blank q', async () => {
    const res = await ask({ q: ' \t ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Missing required parameter: q');
  });
});

describe('keys and failures', () => {
  test('two pooled keys: a refused one rests and the other answers', async () => {
    await s.withApp({}, async (own) => {
      const first = fake.calls.length;
      // Refuse whichever key comes first; the retry must carry the other one.
      let n = 0;
      answer = () => (n++ === 0 ? { status: 401, json: fixture('error-401.json') } : { json: fixture('sonar.json') });
      const res = await ask({ q: 'hi' }, own);
      expect(res.status).toBe(200);
      const used = fake.calls.slice(first).map((c) => String(c.headers.authorization));
      expect(used).toHaveLength(2);
      expect(new Set(used).size).toBe(2);
      // The refused key stays out: the next calls all use the other one.
      fake.calls.length = 0;
      await ask({ q: 'again' }, own);
      await ask({ q: 'and again' }, own);
      expect(fake.calls.map((c) => c.headers.authorization)).toEqual([used[1], used[1]]);
    });
  });

  test.each(UPSTREAM_FAILURES)('$name', async (f) => {
    await s.withApp({}, async (own) => {
      answer = () => f.answer;
      expectFailure(await ask({ q: 'hi' }, own), f);
    });
  });

  test('slow upstream → 504', async () => {
    s.failWith = { delayMs: 2000, json: fixture('sonar.json') };
    // Perplexity requires a key, so the short-timeout client gets one too.
    const cfg = loadCatalog(loadConfig({}).catalogDir).upstreams.perplexity;
    const upstream = createUpstreams(
      { perplexity: { ...cfg, timeout: '200ms', retries: 0 } },
      { UPSTREAM_PERPLEXITY_URL: fake.url, UPSTREAM_PERPLEXITY_KEYS: KEYS[0] },
      { userAgent: 'test', log: pino({ level: 'silent' }) },
    );
    await expectUpstreamTimeout((ctx) => chat2({ q: 'hi', model: 'auto' }, ctx), 'perplexity', fake.url, '200ms', { upstream });
  });

  test('no key pooled: 503 naming UPSTREAM_PERPLEXITY_KEYS, without calling out', async () => {
    await s.withApp({ env: { UPSTREAM_PERPLEXITY_KEYS: undefined } }, async (keyless) => {
      const res = await ask({ q: 'hi' }, keyless).timeout(3000);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'Upstream perplexity needs a key: set UPSTREAM_PERPLEXITY_KEYS',
        code: 'not_configured',
      });
      expect(fake.calls).toHaveLength(0);
    });
  });
});
