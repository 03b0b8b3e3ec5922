// Every parameter of every endpoint, given hostile values beside otherwise valid ones, gets an answer
// that is never a 500: bounds, junk, markup, path tricks, huge numbers, control and bidi characters.
// Offline (every host name fails to resolve), so upstream endpoints answer their 502/503 instead.
import dns from 'node:dns';
import request from 'supertest';
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { offlineLookup, realLookup, sampleParams } from '../helpers/offline.js';

const HOSTILE = [
  '-1',
  '99999999999999999999',
  'x'.repeat(3000),
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  '\u202e💥\u0007',
  'null',
  '{"a":1}',
];
const endpoints = loadCatalog(loadConfig({}).catalogDir).endpoints;
const cases = endpoints.flatMap((spec) =>
  Object.entries(spec.params)
    .filter(([, p]) => p.type !== 'file' || p.orText)
    .flatMap(([name]) => HOSTILE.map((value) => ({ spec, name, value }))),
);

let t: TestApp;
const failures: string[] = [];

beforeAll(async () => {
  (dns as { lookup: unknown }).lookup = offlineLookup;
  t = await testApp({ ALLOW_PRIVATE_FETCH: undefined, AUTH_FAIL_LIMIT: '100000' });
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const params = { apikey: t.key, ...sampleParams(c.spec), [c.name]: c.value };
      const path = `/api/v1/${c.spec.id}`;
      const res = c.spec.method === 'GET' ? await request(t.app).get(path).query(params) : await request(t.app).post(path).send(params);
      if (res.status >= 500 && ![501, 502, 503, 504].includes(res.status))
        failures.push(
          `${c.spec.id} ${c.name}=${JSON.stringify(c.value.slice(0, 30))}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
        );
      else if (typeof res.body?.success !== 'boolean' && !String(res.headers['content-type']).startsWith('audio/'))
        failures.push(`${c.spec.id} ${c.name}: no envelope (${res.status})`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}, 600_000);

afterAll(async () => {
  (dns as { lookup: unknown }).lookup = realLookup;
  await t?.close();
});

test(`hostile values in every parameter (${cases.length} calls) never give a 500`, () => {
  expect(cases.length).toBeGreaterThan(1000);
  expect(failures).toEqual([]);
});
