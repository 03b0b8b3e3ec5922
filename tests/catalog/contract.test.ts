// The rules every endpoint shares, generated from the catalog: a new YAML entry is tested the moment it
// exists. 401 without or with a bad key, 400 naming each missing required parameter, the rate-limit
// headers on all of them, and POST endpoints accepting both the query-string and the JSON-body form.
import request from 'supertest';
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { appForTests } from '../helpers/app.js';
import { sampleValue } from '../helpers/samples.js';

const endpoints = loadCatalog(loadConfig({}).catalogDir).endpoints;
const t = appForTests({ AUTH_FAIL_LIMIT: '100000' });

function send(method: string, path: string, params: Record<string, string>, form: 'query' | 'json' = 'query') {
  const r = method === 'GET' ? request(t.app).get(path) : request(t.app).post(path);
  return form === 'query' ? r.query(params) : r.send(params);
}

function expectLimitHeaders(res: request.Response) {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
    expect(res.headers[h]).toBeDefined();
  }
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 5);
}

test('the catalog holds the 79 endpoints of the spec', () => {
  expect(endpoints).toHaveLength(79);
});

describe.each(endpoints.map((e) => [e.id, e] as const))('%s', (id, spec) => {
  const path = `/api/v1/${id}`;
  const required = Object.entries(spec.params).filter(([, p]) => p.required);
  const filled = (except?: string) =>
    Object.fromEntries(required.filter(([n, p]) => n !== except && p.type !== 'file').map(([n, p]) => [n, sampleValue(p)]));

  test('401 Missing apikey parameter, with limit headers', async () => {
    const res = await send(spec.method, path, filled());
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'Missing apikey parameter' });
    expectLimitHeaders(res);
  });

  test('401 Invalid apikey', async () => {
    const res = await send(spec.method, path, { ...filled(), apikey: 'not-a-real-key' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Invalid apikey', code: 'invalid_key' });
    expectLimitHeaders(res);
  });

  const requiredNames = required.map(([n]) => n);
  if (requiredNames.length)
    test.each(requiredNames)('400 Missing required parameter: %s', async (name) => {
      for (const form of spec.method === 'POST' ? (['query', 'json'] as const) : (['query'] as const)) {
        const res = await send(spec.method, path, { ...filled(name), apikey: t.key }, form);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ success: false, error: `Missing required parameter: ${name}`, code: 'bad_input' });
        expectLimitHeaders(res);
      }
    });

  test('wrong method answers 405 with Allow', async () => {
    const res =
      spec.method === 'GET'
        ? await request(t.app).post(path).query({ apikey: t.key })
        : await request(t.app).get(path).query({ apikey: t.key });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(spec.method);
    expect(res.body.success).toBe(false);
  });
});
