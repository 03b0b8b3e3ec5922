// ai/chat-1 against a loopback OpenAI-compatible server: the one-turn request with the configured (or
// UPSTREAM_OPENAI_COMPAT_MODEL) model and the pooled key as a Bearer token, data.response/data.model
// exactly, a leading <think> block dropped, the upstream's failures mapped, and a 503 naming the variable
// until the operator sets a URL.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import chat1 from '../../../adapters/ai/chat-1.js';

const KEY = 'sk-test-openai-compat-0001';

let answer: FakeResponse;
const s = upstreamSuite({
  endpoint: 'ai/chat-1',
  upstreams: { 'openai-compat': { basePath: '/v1', keys: KEY, routes: { 'POST /v1/chat/completions': () => answer } } },
});
const { fake, fixture } = s;
beforeEach(() => {
  answer = { json: fixture('completion.json') };
});

const ask = (q: string) => s.get({ q });

describe('chat', () => {
  test('one user turn with the configured model and the pooled key; data.response and data.model exactly', async () => {
    const res = await ask('What is the capital of France?');
    expectAnswer(res, 'openai-compat');
    expect(res.body.data).toEqual({ response: 'Paris.', model: 'gpt-4o-mini-2024-07-18' });
    expectMatchesSchema('ai/chat-1', res.body.data);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.calls[0].headers['content-type']).toMatch(/application\/json/);
    expect(fake.calls[0].json()).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the capital of France?' }] });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  test('a reply without a model reports the model asked for', async () => {
    answer = { json: fixture('completion-no-model.json') };
    const res = await ask('Say hello in French');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ response: 'Bonjour !', model: 'gpt-4o-mini' });
  });

  test('UPSTREAM_OPENAI_COMPAT_MODEL overrides the catalog model', async () => {
    await s.withApp({ env: { UPSTREAM_OPENAI_COMPAT_MODEL: 'llama3.2' } }, async (own) => {
      answer = { json: fixture('completion-no-model.json') };
      const res = await own.get({ q: 'hi' });
      expect(res.status).toBe(200);
      expect((fake.calls[0].json() as { model: string }).model).toBe('llama3.2');
      expect(res.body.data.model).toBe('llama3.2');
    });
  });

  test('a leading <think> block of a reasoning model is dropped', async () => {
    answer = { json: fixture('completion-think.json') };
    const res = await ask('Capital of France?');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ response: 'The capital of France is Paris.', model: 'deepseek-r1:7b' });
  });

  test('content given as text parts is joined', async () => {
    answer = {
      json: {
        model: 'm',
        choices: [
          {
            message: {
              content: [
                { type: 'text', text: 'Par' },
                { type: 'text', text: 'is.' },
              ],
            },
          },
        ],
      },
    };
    const res = await ask('Capital?');
    expect(res.body.data.response).toBe('Paris.');
  });

  test('not cached: the same question asks the server again', async () => {
    await ask('same question');
    await ask('same question');
    expect(fake.calls).toHaveLength(2);
  });
});

describe('bad input', () => {
  test('a blank q is a missing q', async () => {
    const res = await ask('   ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Missing required parameter: q', code: 'bad_input' });
    expect(fake.calls).toHaveLength(0);
  });

  test('q longer than 8000 characters', async () => {
    const res = await ask('x'.repeat(8001));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for q: must be at most 8000 characters');
  });
});

describe('upstream failures', () => {
  // A 429 or a refusal rests the pooled key, so each of those gets an app (and a key pool) of its own.
  test.each(UPSTREAM_FAILURES.filter((f) => f.name !== 'upstream 404'))('$name', async (f) => {
    answer = f.answer;
    await s.withApp({}, async (own) => expectFailure(await own.get({ q: 'hello' }), f));
  });

  test('404 (wrong base path or unknown model) is our configuration: 502', async () => {
    answer = { status: 404, json: fixture('error-model.json') };
    const res = await ask('hello');
    expectFailure(res, { status: 502, code: 'upstream_failed' });
    expect(res.body.error).not.toContain('gpt-9');
  });

  test('a 200 without choices is a 502', async () => {
    answer = { json: { object: 'chat.completion', choices: [] } };
    expectFailure(await ask('hello'), { status: 502, code: 'upstream_changed' });
  });

  test('the pooled key refused: it rests, and with no other key the caller gets a 503', async () => {
    answer = { status: 401, json: fixture('error-401.json') };
    await s.withApp({}, async (own) => {
      const res = await own.get({ q: 'hello' });
      expectFailure(res, { status: 503, code: 'upstream_busy' });
      expect(JSON.stringify(res.body)).not.toContain(KEY);
      // The resting key is not tried again.
      const again = await own.get({ q: 'hello' });
      expect(again.status).toBe(503);
      expect(fake.calls).toHaveLength(1);
    });
  });

  test('slow server → 504', async () => {
    s.failWith = { delayMs: 2000, json: fixture('completion.json') };
    await expectUpstreamTimeout((ctx) => chat1({ q: 'hello' }, ctx), 'openai-compat', fake.url, '200ms');
  });
});

describe('not configured', () => {
  test('503 naming UPSTREAM_OPENAI_COMPAT_URL, at once', async () => {
    await s.withApp({ without: ['openai-compat'] }, async (bare) => {
      const res = await bare.get({ q: 'hello' }).timeout(3000);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'Upstream openai-compat is not configured: set UPSTREAM_OPENAI_COMPAT_URL',
        code: 'not_configured',
      });
    });
  });

  test('a server that wants a key when none is pooled: 503 naming UPSTREAM_OPENAI_COMPAT_KEYS', async () => {
    await s.withApp({ env: { UPSTREAM_OPENAI_COMPAT_KEYS: undefined } }, async (keyless) => {
      answer = { status: 401, json: fixture('error-401.json') };
      const res = await keyless.get({ q: 'hello' });
      expect(res.status).toBe(503);
      expect(res.body.error).toContain('UPSTREAM_OPENAI_COMPAT_KEYS');
      expect(fake.calls[0].headers.authorization).toBeUndefined();
    });
  });
});
