import net from 'node:net';
import zlib from 'node:zlib';
import { pino } from 'pino';
import { ApiError } from '../../../engine/errors.js';
import { parseDuration } from '../../../engine/duration.js';
import { createUpstreams, envId, type UpstreamConfig } from '../../../engine/upstream/client.js';
import { fakeUpstream, routes, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { logSink } from '../../helpers/log-sink.js';
import { apiError } from '../../helpers/api-error.js';

// Every log line is kept, so tests can prove that no key is ever logged.
const { lines: logLines, sink } = logSink();
const log = pino({ level: 'debug' }, sink);
const UA = 'uua-test/1.0';

const KEYS = ['key-alpha-111', 'key-bravo-222', 'key-charlie-333'];

function upstreams(configs: Record<string, Partial<UpstreamConfig>>, env: NodeJS.ProcessEnv = {}) {
  const full: Record<string, UpstreamConfig> = {};
  for (const [id, c] of Object.entries(configs)) full[id] = { name: id, docs: 'https://example.org/docs', ...c };
  return createUpstreams(full, env, { userAgent: UA, log });
}

/** A loopback port nothing listens on (an upstream that refuses connections). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((ok) => srv.close(ok));
  return port;
}

const fakes: FakeUpstream[] = [];
async function fake(...args: Parameters<typeof fakeUpstream>) {
  const f = await fakeUpstream(...args);
  fakes.push(f);
  return f;
}
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

describe('parseDuration', () => {
  test.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['10m', 600_000],
    ['6h', 21_600_000],
    ['30d', 2_592_000_000],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  test('rejects garbage', () => expect(() => parseDuration('5 minutes')).toThrow(/Invalid duration/));
});

describe('configuration', () => {
  test('env id: upper case, dashes to underscores', () => expect(envId('pokemon-tcg')).toBe('POKEMON_TCG'));

  test('unknown upstream id is a programming error', () => {
    const get = upstreams({});
    expect(() => get('nope')).toThrow('Unknown upstream "nope"');
    expect(() => get('nope')).not.toThrow(ApiError);
  });

  test('no base URL: 503 naming the variable', async () => {
    const c = upstreams({ 'self-hosted': {} })('self-hosted');
    expect(c.baseUrl).toBeUndefined();
    const e = await apiError(c.request({ path: '/x' }));
    expect(e.status).toBe(503);
    expect(e.code).toBe('not_configured');
    expect(e.message).toBe('Upstream self-hosted is not configured: set UPSTREAM_SELF_HOSTED_URL');
  });

  test('UPSTREAM_<ID>_URL=off turns off an upstream that has a public default', async () => {
    const f = await fake(() => ({ json: {} }));
    const c = upstreams({ gtx: { url: f.url } }, { UPSTREAM_GTX_URL: 'OFF' })('gtx');
    expect(c.baseUrl).toBeUndefined();
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ status: 503, code: 'not_configured' });
    expect(f.calls).toHaveLength(0);
  });

  test('UPSTREAM_<ID>_URL overrides the config url; settings exposed', async () => {
    const f = await fake(routes({ 'GET /v2/pokemon/:id': (_req, p) => ({ json: { id: p.id } }) }));
    const port = await closedPort();
    const c = upstreams(
      { 'poke-api': { url: `http://127.0.0.1:${port}/v2`, settings: { a: 1 } } },
      { UPSTREAM_POKE_API_URL: `${f.url}/v2/` },
    )('poke-api');
    expect(c.baseUrl).toBe(`${f.url}/v2/`);
    expect(c.settings).toEqual({ a: 1 });
    const r = await c.request<{ id: string }>({ path: '/pokemon/25' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: '25' });
  });

  test('auth.required without keys: 503 naming the keys variable', async () => {
    const f = await fake(() => ({ json: {} }));
    const c = upstreams({ paid: { url: f.url, auth: { in: 'bearer', required: true } } })('paid');
    expect(c.hasKeys).toBe(false);
    const e = await apiError(c.request({ path: '/' }));
    expect(e.status).toBe(503);
    expect(e.message).toBe('Upstream paid needs a key: set UPSTREAM_PAID_KEYS');
    expect(f.calls).toHaveLength(0);
  });

  test('search params, User-Agent default and override, JSON body', async () => {
    const f = await fake((req) => ({
      json: { q: req.query.get('q'), n: req.query.get('n'), ua: req.headers['user-agent'], body: req.body.length ? req.json() : null },
    }));
    const c = upstreams({ u: { url: f.url } })('u');
    const a = await c.request<Record<string, unknown>>({ path: '/s', searchParams: { q: 'a b', n: 3, skip: undefined } });
    expect(a.body).toEqual({ q: 'a b', n: '3', ua: UA, body: null });
    expect(f.calls[0].query.has('skip')).toBe(false);
    const b = await c.request<Record<string, unknown>>({
      path: '/s',
      method: 'POST',
      json: { x: 1 },
      headers: { 'User-Agent': 'custom/2' },
    });
    expect(b.body).toMatchObject({ ua: 'custom/2', body: { x: 1 } });
  });

  test('responseType text and buffer', async () => {
    const f = await fake(() => ({ text: 'plain words' }));
    const c = upstreams({ u: { url: f.url } })('u');
    expect((await c.request({ path: '/', responseType: 'text' })).body).toBe('plain words');
    const buf = (await c.request<Buffer>({ path: '/', responseType: 'buffer' })).body;
    expect(Buffer.isBuffer(buf) && buf.toString()).toBe('plain words');
  });
});

describe('key pool', () => {
  test('keys are sent per auth.in: bearer, header, query (query key kept out of the returned url)', async () => {
    const f = await fake((req) => ({
      json: { auth: req.headers.authorization ?? null, hdr: req.headers['x-api-key'] ?? null, q: req.query.get('api_key') },
    }));
    const env = { UPSTREAM_B_KEYS: 'kb', UPSTREAM_H_KEYS: 'kh', UPSTREAM_Q_KEYS: 'kq' };
    const get = upstreams(
      {
        b: { url: f.url, auth: { in: 'bearer' } },
        h: { url: f.url, auth: { in: 'header', name: 'X-Api-Key' } },
        q: { url: f.url, auth: { in: 'query', name: 'api_key' } },
      },
      env,
    );
    expect((await get('b').request({ path: '/' })).body).toEqual({ auth: 'Bearer kb', hdr: null, q: null });
    expect((await get('h').request({ path: '/' })).body).toEqual({ auth: null, hdr: 'kh', q: null });
    const q = await get('q').request({ path: '/', searchParams: { a: 1 } });
    expect(q.body).toEqual({ auth: null, hdr: null, q: 'kq' });
    expect(q.url).not.toContain('kq');
    expect(q.url).toContain('a=1');
  });

  test('UPSTREAM_<ID>_TIMEOUT overrides the configured timeout', async () => {
    const f = await fake(() => ({ json: { ok: true }, delayMs: 400 }));
    const c = upstreams({ slow: { url: f.url, timeout: '30s', retries: 0 } }, { UPSTREAM_SLOW_TIMEOUT: '150ms' })('slow');
    const started = Date.now();
    expect((await apiError(c.request({ path: '/' }))).code).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test('keys can go in the body: json (LibreTranslate api_key) and form (pastebin api_dev_key)', async () => {
    const f = await fake((req) => ({ json: { body: req.body.toString('utf8'), type: req.headers['content-type'] } }));
    const get = upstreams(
      { j: { url: f.url, auth: { in: 'json', name: 'api_key' } }, fm: { url: f.url, auth: { in: 'form', name: 'api_dev_key' } } },
      { UPSTREAM_J_KEYS: 'kj', UPSTREAM_FM_KEYS: 'kf' },
    );
    const j = (await get('j').request<{ body: string }>({ path: '/translate', method: 'POST', json: { q: 'hi' } })).body;
    expect(JSON.parse(j.body)).toEqual({ q: 'hi', api_key: 'kj' });
    const fm = (await get('fm').request<{ body: string }>({ path: '/api', method: 'POST', form: { api_paste_code: 'x' } })).body;
    expect(new URLSearchParams(fm.body).get('api_dev_key')).toBe('kf');
    expect(new URLSearchParams(fm.body).get('api_paste_code')).toBe('x');
    // A GET carries no body, so no body key either.
    expect((await get('j').request<{ body: string }>({ path: '/languages' })).body.body).toBe('');
  });

  test('round-robin rotation; a key answered 401 cools down and the request moves on to the next key', async () => {
    const f = await fake((req) =>
      req.headers.authorization === `Bearer ${KEYS[0]}`
        ? { status: 401, json: { error: 'bad key' } }
        : { json: { key: req.headers.authorization } },
    );
    const c = upstreams({ rot: { url: f.url, auth: { in: 'bearer' } } }, { UPSTREAM_ROT_KEYS: ` ${KEYS.join(' , ')} ` })('rot');
    expect(c.hasKeys).toBe(true);
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push(String((await c.request<{ key: string }>({ path: '/' })).body.key));
    // 1st: alpha (401, cools) → bravo; 2nd: charlie; 3rd: bravo (alpha cooling); 4th: charlie.
    expect(seen).toEqual([`Bearer ${KEYS[1]}`, `Bearer ${KEYS[2]}`, `Bearer ${KEYS[1]}`, `Bearer ${KEYS[2]}`]);
    expect(f.calls.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEYS[0]}`,
      `Bearer ${KEYS[1]}`,
      `Bearer ${KEYS[2]}`,
      `Bearer ${KEYS[1]}`,
      `Bearer ${KEYS[2]}`,
    ]);
  });

  test('every key cooling down: 503 with Retry-After, each key tried once', async () => {
    const f = await fake(() => ({ status: 429, headers: { 'retry-after': '120' }, json: { error: 'slow down' } }));
    const c = upstreams({ busy: { url: f.url, auth: { in: 'header', name: 'x-key' } } }, { UPSTREAM_BUSY_KEYS: KEYS.join(',') })('busy');
    const e = await apiError(c.request({ path: '/' }));
    expect(e.status).toBe(503);
    expect(e.code).toBe('upstream_busy');
    expect(e.message).toBe('Upstream busy is rate limited; try again later');
    expect(Number(e.headers['Retry-After'])).toBeGreaterThanOrEqual(119);
    expect(f.calls.map((r) => r.headers['x-key'])).toEqual(KEYS);
    // Still cooling: refused without calling the provider at all.
    const again = await apiError(c.request({ path: '/' }));
    expect(again.status).toBe(503);
    expect(f.calls).toHaveLength(3);
  });

  test('callerKey is used when no pooled key is free', async () => {
    const f = await fake((req) =>
      req.headers.authorization === 'Bearer caller-key-xyz' ? { json: { ok: true } } : { status: 429, json: {} },
    );
    const c = upstreams({ gen: { url: f.url, auth: { in: 'bearer', required: true } } }, { UPSTREAM_GEN_KEYS: 'pooled-1' })('gen');
    const r = await c.request({ path: '/', callerKey: 'caller-key-xyz' });
    expect(r.body).toEqual({ ok: true });
    expect(f.calls.map((x) => x.headers.authorization)).toEqual(['Bearer pooled-1', 'Bearer caller-key-xyz']);
    // With no pool at all, a required-auth upstream takes the caller's key.
    const solo = upstreams({ gen: { url: f.url, auth: { in: 'bearer', required: true } } })('gen');
    expect((await solo.request({ path: '/', callerKey: 'caller-key-xyz' })).body).toEqual({ ok: true });
  });

  test('a callerKey rejected by the provider is a 400 about upstream_key', async () => {
    const f = await fake(() => ({ status: 401, json: { error: 'invalid api key caller-key-bad' } }));
    const c = upstreams({ gen: { url: f.url, auth: { in: 'bearer', required: true } } })('gen');
    const e = await apiError(c.request({ path: '/', callerKey: 'caller-key-bad' }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('Invalid value for upstream_key: rejected by the upstream provider');
  });

  test('a header key is not carried across a cross-origin redirect', async () => {
    const other = await fake((req) => ({ json: { key: req.headers['x-key'] ?? null } }));
    const f = await fake(() => ({ status: 302, headers: { location: `${other.url}/landing` } }));
    const c = upstreams({ r: { url: f.url, auth: { in: 'header', name: 'X-Key' } } }, { UPSTREAM_R_KEYS: 'secret-hdr-key' })('r');
    const r = await c.request({ path: '/go' });
    expect(r.body).toEqual({ key: null });
    expect(f.calls[0].headers['x-key']).toBe('secret-hdr-key');
  });
});

describe('status mapping', () => {
  let f: FakeUpstream;
  let get: ReturnType<typeof upstreams>;
  beforeAll(async () => {
    f = await fake(
      routes({
        'GET /ok': () => ({ json: { ok: true } }),
        'GET /missing': () => ({ status: 404, json: { message: 'no such thing' } }),
        'GET /unprocessable': () => ({ status: 422, json: { detail: 'upstream internals at 10.0.0.7' } }),
        'GET /throttled': () => ({ status: 429, headers: { 'retry-after': '7' }, json: {} }),
        'GET /broken': () => ({ status: 500, text: 'stack trace here' }),
        '* /flaky': () => ({ status: 503, text: 'down' }),
        'GET /malformed': () => ({ headers: { 'content-type': 'application/json' }, text: '{"oops": ' }),
        'GET /slow': () => ({ delayMs: 1500, json: { late: true } }),
      }),
    );
    get = upstreams({
      // Time enough for a loaded machine's first connection; /slow is slower still.
      s: { url: f.url, timeout: '1s', retries: 0 },
      r: { url: f.url, retries: 2 },
      // A 429 without keys holds its whole upstream, and failures open its breaker: these get their own.
      t: { url: f.url, retries: 2 },
      n: { url: f.url, retries: 2 },
    });
  });

  test('404 → not_found with the default or the adapter message', async () => {
    expect(await apiError(get('s').request({ path: '/missing' }))).toMatchObject({ status: 404, message: 'Not found upstream' });
    expect(await apiError(get('s').request({ path: '/missing', notFoundMessage: 'Pokemon not found' }))).toMatchObject({
      status: 404,
      message: 'Pokemon not found',
    });
  });

  test('allowStatus returns the answer untouched', async () => {
    const r = await get('s').request({ path: '/missing', allowStatus: [404] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: 'no such thing' });
  });

  test('422 → 400 without echoing the upstream body', async () => {
    const e = await apiError(get('s').request({ path: '/unprocessable' }));
    expect(e).toMatchObject({ status: 400, message: 'The upstream service rejected the request' });
  });

  test('429 without keys → 503 with the Retry-After of the provider', async () => {
    const before = f.calls.length;
    const e = await apiError(get('t').request({ path: '/throttled' }));
    expect(e).toMatchObject({ status: 503, code: 'upstream_busy' });
    expect(e.headers['Retry-After']).toBe('7');
    // The upstream is not asked again until its Retry-After has passed.
    const again = await apiError(get('t').request({ path: '/ok' }));
    expect(again).toMatchObject({ status: 503, code: 'upstream_busy' });
    expect(Number(again.headers['Retry-After'])).toBeGreaterThanOrEqual(6);
    expect(f.calls.length - before).toBe(1);
  });

  test('500 → 502', async () => {
    expect(await apiError(get('s').request({ path: '/broken' }))).toMatchObject({ status: 502, message: 'The upstream service failed' });
  });

  test('malformed JSON → 502', async () => {
    const e = await apiError(get('s').request({ path: '/malformed' }));
    expect(e).toMatchObject({ status: 502, message: 'The upstream service answered with malformed data' });
  });

  test('slower than the timeout → 504; a request may set its own timeout', async () => {
    expect(await apiError(get('s').request({ path: '/slow' }))).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(await apiError(get('r').request({ path: '/slow', timeoutMs: 200 }))).toMatchObject({ status: 504 });
    expect((await get('s').request({ path: '/slow', timeoutMs: 5000 })).body).toEqual({ late: true });
  });

  test('refused port → 502 unreachable', async () => {
    const port = await closedPort();
    const c = upstreams({ gone: { url: `http://127.0.0.1:${port}` } })('gone');
    const e = await apiError(c.request({ path: '/x' }));
    expect(e).toMatchObject({ status: 502, message: 'The upstream service is unreachable' });
  });

  test('an aborted signal cancels the call', async () => {
    const ac = new AbortController();
    const p = get('r').request({ path: '/slow', signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const started = Date.now();
    const e = await apiError(p);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(e.status).toBe(504);
  });

  test('retries: GET on 5xx up to `retries` times, never POST, never 429 or 404', async () => {
    const count = (path: string, method?: string) => f.calls.filter((c) => c.path === path && (!method || c.method === method)).length;
    await apiError(get('r').request({ path: '/flaky' }));
    expect(count('/flaky', 'GET')).toBe(3);
    await apiError(get('r').request({ path: '/flaky', method: 'POST', json: {} }));
    expect(count('/flaky', 'POST')).toBe(1);
    const before404 = count('/missing');
    await apiError(get('n').request({ path: '/missing' }));
    expect(count('/missing') - before404).toBe(1);
  });
});

describe('answers on the wire', () => {
  test('gzip, deflate and brotli answers are decoded; the encodings are asked for', async () => {
    const body = JSON.stringify({ name: 'pikachu' });
    const f = await fake(
      routes({
        'GET /gz': () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zlib.gzipSync(body) }),
        'GET /deflate': () => ({
          headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' },
          body: zlib.deflateSync(body),
        }),
        'GET /br': () => ({
          headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
          body: zlib.brotliCompressSync(body),
        }),
        'GET /bad': () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, text: 'not gzip' }),
      }),
    );
    const c = upstreams({ z: { url: f.url, retries: 0 } })('z');
    for (const path of ['/gz', '/deflate', '/br']) expect((await c.request({ path })).body).toEqual({ name: 'pikachu' });
    expect(f.calls[0].headers['accept-encoding']).toMatch(/gzip.*br|br.*gzip/);
    expect(await apiError(c.request({ path: '/bad' }))).toMatchObject({
      status: 502,
      message: 'The upstream service answered with malformed data',
    });
  });

  test('a POST redirected by a 303 becomes a GET without its body; a 307 keeps both; POSTs are not followed by default', async () => {
    const f = await fake(
      routes({
        'POST /see-other': () => ({ status: 303, headers: { location: '/landing' } }),
        'POST /temporary': () => ({ status: 307, headers: { location: '/landing' } }),
        '* /landing': (req) => ({
          json: { method: req.method, body: req.body.toString('utf8'), type: req.headers['content-type'] ?? null },
        }),
      }),
    );
    const c = upstreams({ r: { url: f.url } })('r');
    const seeOther = await c.request({ path: '/see-other', method: 'POST', json: { a: 1 }, followRedirect: true });
    expect(seeOther.body).toEqual({ method: 'GET', body: '', type: null });
    expect(seeOther.url).toBe(`${f.url}/landing`);
    const temporary = await c.request({ path: '/temporary', method: 'POST', json: { a: 1 }, followRedirect: true });
    expect(temporary.body).toEqual({ method: 'POST', body: '{"a":1}', type: 'application/json' });
    const kept = await c.request({ path: '/temporary', method: 'POST', json: { a: 1 }, allowStatus: [307] });
    expect(kept.status).toBe(307);
  });

  test('more than 5 redirects → 502', async () => {
    const f = await fake(routes({ 'GET /loop/:n': (_req, p) => ({ status: 302, headers: { location: `/loop/${Number(p.n) + 1}` } }) }));
    const c = upstreams({ l: { url: f.url, retries: 0 } })('l');
    expect(await apiError(c.request({ path: '/loop/0' }))).toMatchObject({ status: 502 });
    expect(f.calls).toHaveLength(6);
  });
});

describe('secrets stay secret', () => {
  test('no key, upstream URL or internal address in any error message or log line', async () => {
    const secret = 'sk-live-SECRET-9f8e7d';
    const caller = 'caller-SECRET-123';
    const f = await fake(
      routes({
        'GET /:status': (_req, p) => ({ status: Number(p.status), json: { echo: secret, caller } }),
        'GET /malformed/x': () => ({ text: `not json ${secret}` }),
        'GET /slow/x': () => ({ delayMs: 400, json: {} }),
      }),
    );
    const port = await closedPort();
    const get = upstreams(
      {
        q: { url: f.url, retries: 0, auth: { in: 'query', name: 'key' } },
        dead: { url: `http://127.0.0.1:${port}`, retries: 0, auth: { in: 'query', name: 'key' } },
        slow: { url: f.url, timeout: '50ms', auth: { in: 'query', name: 'key' } },
      },
      { UPSTREAM_Q_KEYS: secret, UPSTREAM_DEAD_KEYS: secret, UPSTREAM_SLOW_KEYS: secret },
    );
    const errors: ApiError[] = [];
    for (const status of [400, 401, 404, 405, 409, 410, 413, 415, 422, 429, 500, 502, 503]) {
      errors.push(await apiError(get('q').request({ path: `/${status}`, searchParams: { k: secret }, callerKey: caller })));
    }
    errors.push(await apiError(get('q').request({ path: '/malformed/x', callerKey: caller })));
    errors.push(await apiError(get('dead').request({ path: `/${secret}`, callerKey: caller })));
    errors.push(await apiError(get('slow').request({ path: '/slow/x', callerKey: caller })));
    for (const e of errors) {
      for (const bad of [secret, caller, '127.0.0.1', String(f.url), 'localhost', '\n']) expect(e.message).not.toContain(bad);
    }
    const logs = logLines.join('\n');
    expect(logs).toContain('"upstream":"q"');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(caller);
    expect(logs).not.toContain('key=');
  });
});
