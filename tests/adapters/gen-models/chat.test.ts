// gen-models/chat-01 … chat-17 against a loopback Pollinations: each endpoint sends its bound model, the
// pooled keys rotate and rest after 401/402/429, the caller's upstream_key is used when no pooled key is
// free (and a refused one is a 400 naming it), neither is a 400 naming upstream_key, an empty q is a 400,
// no key ever reaches a log line or an answer, and a client that hangs up cancels the upstream call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../../server/app.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, type AppOptions, type Caller } from '../../helpers/upstream-suite.js';
import { KEYS } from '../../helpers/app.js';
import { hangUp, onHungUpstream } from '../../helpers/hung-upstream.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import chat from '../../../adapters/gen-models/chat.js';
import { logSink } from '../../helpers/log-sink.js';

const POOL = ['sk_pool_key_alpha_0001', 'sk_pool_key_bravo_0002'];
const CALLER = 'sk_caller_own_key_7777';
const chats = loadCatalog(loadConfig({}).catalogDir).endpoints.filter((e) => e.adapter === 'gen-models/chat');

/** The answer for one upstream call: by default a completion naming the model asked for. */
let answer: (req: { model: string; auth: string | undefined }) => FakeResponse;
const s = upstreamSuite({
  upstreams: {
    pollinations: {
      keys: POOL.join(','),
      routes: {
        'POST /v1/chat/completions': (req) => answer({ model: (req.json() as { model: string }).model, auth: req.headers.authorization }),
      },
    },
  },
});
const { fake, fixture } = s;
beforeEach(() => {
  answer = ({ model }) => ({ json: { ...fixture('chat.json'), model } });
});

const post = (endpoint: string, body: Record<string, string>, app: Caller = s) => app.post(body, `gen-models/${endpoint}`);
const bearer = (k: string) => `Bearer ${k}`;
/** An app of its own (its own key pool): with the two pooled keys, or with none. */
const POOLED: AppOptions = {};
const NO_POOL: AppOptions = { env: { UPSTREAM_POLLINATIONS_KEYS: undefined } };

describe('bindings', () => {
  test('17 chat endpoints, 17 distinct models', () => {
    expect(chats).toHaveLength(17);
    expect(new Set(chats.map((e) => e.options?.model)).size).toBe(17);
  });

  test.each(chats.map((e) => [e.name, String(e.options?.model)] as const))(
    '%s asks for %s and reports the answering model',
    async (name, model) => {
      const res = await post(name, { q: 'Say hello' });
      expectAnswer(res, 'pollinations');
      expect(res.body.data).toEqual({ response: 'Hello! How can I help?', model });
      expectMatchesSchema(`gen-models/${name}`, res.body.data);
      expect(fake.calls[0].path).toBe('/v1/chat/completions');
      expect(fake.calls[0].json()).toEqual({ model, messages: [{ role: 'user', content: 'Say hello' }] });
    },
  );

  test('parameters in the query string work as well as in the JSON body', async () => {
    const res = await request(s.t.app).post('/api/v1/gen-models/chat-05').query({ apikey: s.t.key, q: 'hi there' });
    expect(res.status).toBe(200);
    expect((fake.calls[0].json() as { messages: Array<{ content: string }> }).messages[0].content).toBe('hi there');
  });

  test('never cached: the same prompt is generated again', async () => {
    await post('chat-01', { q: 'same' });
    const second = await post('chat-01', { q: 'same' });
    expect(second.body.metadata.cached).toBe(false);
    expect(fake.calls).toHaveLength(2);
  });
});

describe('prompt', () => {
  test.each([
    ['absent', {}],
    ['empty', { q: '' }],
    ['blank', { q: '   ' }],
  ])('q %s → 400 Missing required parameter: q', async (_n, body) => {
    const res = await post('chat-01', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Missing required parameter: q', code: 'bad_input' });
    expect(fake.calls).toHaveLength(0);
  });

  test('q over 8000 characters → 400', async () => {
    const res = await post('chat-01', { q: 'a'.repeat(8001) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for q: must be at most 8000 characters');
  });
});

describe('pooled keys', () => {
  test('round robin over the two pooled keys; upstream_key is not used while one is free', async () => {
    await s.withApp(POOLED, async (app) => {
      for (let i = 0; i < 4; i++) expect((await post('chat-01', { q: `n${i}`, upstream_key: CALLER }, app)).status).toBe(200);
      expect(fake.calls.map((c) => c.headers.authorization)).toEqual([bearer(POOL[0]), bearer(POOL[1]), bearer(POOL[0]), bearer(POOL[1])]);
    });
  });

  test.each([401, 402, 429])('a pooled key answered %i rests; the request is retried with the other key', async (status) => {
    await s.withApp(POOLED, async (app) => {
      answer = ({ model, auth }) =>
        auth === bearer(POOL[0])
          ? { status, json: fixture(status === 402 ? 'error-402.json' : 'error-401.json') }
          : { json: { ...fixture('chat.json'), model } };
      const res = await post('chat-02', { q: 'hi' }, app);
      expect(res.status).toBe(200);
      expect(fake.calls.map((c) => c.headers.authorization)).toEqual([bearer(POOL[0]), bearer(POOL[1])]);
      // The resting key is skipped afterwards.
      fake.calls.length = 0;
      await post('chat-02', { q: 'again' }, app);
      await post('chat-02', { q: 'and again' }, app);
      expect(fake.calls.map((c) => c.headers.authorization)).toEqual([bearer(POOL[1]), bearer(POOL[1])]);
    });
  });

  test('every pooled key resting and no upstream_key: 503 with Retry-After', async () => {
    await s.withApp(POOLED, async (app) => {
      answer = () => ({ status: 429, headers: { 'retry-after': '40' }, json: { error: 'slow down' } });
      const res = await post('chat-03', { q: 'hi' }, app);
      expectFailure(res, { status: 503, code: 'upstream_busy' });
      expect(fake.calls).toHaveLength(2);
    });
  });

  test('every pooled key resting: the caller key steps in', async () => {
    await s.withApp(POOLED, async (app) => {
      answer = ({ model, auth }) =>
        auth === bearer(CALLER) ? { json: { ...fixture('chat.json'), model } } : { status: 402, json: fixture('error-402.json') };
      const res = await post('chat-04', { q: 'hi', upstream_key: CALLER }, app);
      expect(res.status).toBe(200);
      expect(fake.calls.map((c) => c.headers.authorization)).toEqual([bearer(POOL[0]), bearer(POOL[1]), bearer(CALLER)]);
    });
  });
});

describe('upstream_key', () => {
  test('no pooled key: the caller key is sent as the Bearer token, and the answer is not cached', async () => {
    await s.withApp(NO_POOL, async (app) => {
      const res = await post('chat-06', { q: 'hi', upstream_key: CALLER }, app);
      expect(res.status).toBe(200);
      expect(fake.calls[0].headers.authorization).toBe(bearer(CALLER));
      expect(JSON.stringify(res.body)).not.toContain(CALLER);
    });
  });

  test.each([401, 402, 403])('a caller key refused with %i → 400 naming upstream_key', async (status) => {
    await s.withApp(NO_POOL, async (app) => {
      answer = () => ({ status, json: fixture(status === 402 ? 'error-402.json' : 'error-401.json') });
      const res = await post('chat-07', { q: 'hi', upstream_key: CALLER }, app);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: 'Invalid value for upstream_key: rejected by the upstream provider',
        code: 'bad_input',
      });
      expect(fake.calls).toHaveLength(1);
    });
  });

  test('neither a pooled key nor upstream_key → 400 Missing required parameter: upstream_key, at once, nothing sent', async () => {
    await s.withApp(NO_POOL, async (app) => {
      for (const name of ['chat-01', 'chat-17', 'image-01', 'audio-01', 'video-01']) {
        const res = await post(name, { q: 'hi' }, app).timeout(3000);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ success: false, error: 'Missing required parameter: upstream_key', code: 'bad_input' });
      }
      expect(fake.calls).toHaveLength(0);
    });
  });

  test('an empty upstream_key counts as none', async () => {
    await s.withApp(NO_POOL, async (app) => {
      const res = await post('chat-01', { q: 'hi', upstream_key: '' }, app);
      expect(res.body.error).toBe('Missing required parameter: upstream_key');
    });
  });

  test('neither the caller key nor the pooled keys appear in any log line', async () => {
    const { lines, sink } = logSink();
    const log = pino({ level: 'trace' }, sink);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-gen-log-'));
    const keysFile = path.join(dataDir, 'keys.yaml');
    fs.writeFileSync(keysFile, `- { key: ${KEYS.premium}, plan: premium, name: test }\n`);
    const api = await createApp(
      {
        DATA_DIR: dataDir,
        API_KEYS_FILE: keysFile,
        UPSTREAM_POLLINATIONS_URL: fake.url,
        UPSTREAM_POLLINATIONS_KEYS: POOL[0],
        PUBLIC_URL: 'http://127.0.0.1:3999',
      },
      { log },
    );
    try {
      answer = ({ model, auth }) =>
        auth === bearer(CALLER) ? { json: { ...fixture('chat.json'), model } } : { status: 401, json: fixture('error-401.json') };
      const ok = await request(api.app).post('/api/v1/gen-models/chat-01').send({ apikey: KEYS.premium, q: 'hi', upstream_key: CALLER });
      expect(ok.status).toBe(200);
      answer = () => ({ status: 401, json: fixture('error-401.json') });
      const refused = await request(api.app)
        .post('/api/v1/gen-models/chat-01')
        .send({ apikey: KEYS.premium, q: 'hi', upstream_key: CALLER });
      expect(refused.status).toBe(400);
      expect(lines.length).toBeGreaterThan(0);
      const all = lines.join('\n');
      expect(all).not.toContain(CALLER);
      expect(all).not.toContain(POOL[0]);
    } finally {
      await api.close();
    }
  });
});

describe('upstream failures', () => {
  test("a 400 about the prompt is the caller's: 400", async () => {
    answer = () => ({ status: 400, json: fixture('error-400-prompt.json') });
    const res = await post('chat-08', { q: 'something flagged' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('The upstream provider rejected the prompt');
  });

  test('a 400 about the model (the binding drifted) is ours: 502', async () => {
    answer = () => ({ status: 400, json: fixture('error-400-model.json') });
    const res = await post('chat-17', { q: 'hi' });
    expectFailure(res, { status: 502, code: 'upstream_failed' });
  });

  test('404 (path drifted) → 502; 500 → 502 without retry; malformed → 502; no choices → 502', async () => {
    for (const [a, code] of [
      [{ status: 404, json: { error: 'Not Found' } }, 'upstream_failed'],
      [{ status: 500, json: fixture('error-500.json') }, 'upstream_failed'],
      // Shape drift: an HTML page where JSON was, a choice without content.
      [{ status: 200, headers: { 'content-type': 'application/json' }, text: '<html>oops</html>' }, 'upstream_changed'],
      [{ json: { model: 'openai', choices: [{ message: { content: null } }] } }, 'upstream_changed'],
    ] as Array<[FakeResponse, string]>) {
      fake.calls.length = 0;
      answer = () => a;
      expectFailure(await post('chat-09', { q: 'hi' }), { status: 502, code });
      expect(fake.calls).toHaveLength(1);
    }
  });

  test('slow upstream → 504', async () => {
    s.failWith = { delayMs: 2000, json: fixture('chat.json') };
    await expectUpstreamTimeout((ctx) => chat({ q: 'hi', upstream_key: CALLER }, ctx), 'pollinations', fake.url, '200ms', {
      options: { model: 'openai' },
    });
  });
});

describe('client disconnect', () => {
  test('hanging up cancels the upstream call', async () => {
    const env = (url: string) => ({ UPSTREAM_POLLINATIONS_URL: url, UPSTREAM_POLLINATIONS_KEYS: POOL[0] });
    await onHungUpstream(s, env, async (hung, server, app) => {
      const ended = await hangUp(`${server}/api/v1/gen-models/chat-01`, hung.requested, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apikey: app.key, q: 'a long story' }),
      });
      expect(ended).toMatchObject({ name: 'AbortError' });
      expect(await hung.closedWithin(5000)).toBe(true);
    });
  });
});
