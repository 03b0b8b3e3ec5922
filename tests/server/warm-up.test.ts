// The boot's warm-up (server/app.ts, engine/catalog/registry.ts): the server answers /health and the API as
// soon as it is built, before the pages and the adapters are loaded; /health says what is still warming; a
// request that needs a page or an adapter meanwhile waits for it and is answered, never failed; what cannot
// be loaded fails the warm-up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp({}, { cold: true });
});
afterEach(() => t.close());

test('/health answers at once and says what is warming; nothing is left once warm()', async () => {
  const cold = await request(t.app).get('/health').expect(200);
  expect(cold.body).toMatchObject({ status: 'ok', endpoints: 79, adapters: 79, warming: { pages: true } });
  // Every adapter module (some serve more than one endpoint) is still to load.
  expect(cold.body.warming.adapters).toBe(t.api.adapters.size);
  expect(cold.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(cold.headers['x-content-type-options']).toBe('nosniff');
  await t.api.warm();
  const warm = await request(t.app).get('/health').expect(200);
  expect(warm.body.warming).toBeUndefined();
  expect(warm.body).toMatchObject({ status: 'ok', endpoints: 79, adapters: 79 });
  // HEAD has the headers only; another method is not /health's.
  await request(t.app).head('/health').expect(200);
  await request(t.app).post('/health').expect(404);
});

test('an API call and a page before anything is loaded: each waits for its module, and is answered', async () => {
  const [ccgen, page, health] = await Promise.all([
    request(t.app).get(`/api/v1/tools/ccgen?apikey=${t.key}&bin=457173`),
    request(t.app).get('/').set('Accept', 'application/json'),
    request(t.app).get('/health'),
  ]);
  expect(ccgen.status).toBe(200);
  expect(ccgen.body.data.brand).toBe('Visa');
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ success: true, endpoints: 79 });
  expect(health.status).toBe(200);
  // The adapter the call needed is loaded now; the rest are not until the warm-up gets to them.
  const after = await request(t.app).get('/health').expect(200);
  expect(after.body.warming).toEqual({ adapters: t.api.adapters.size - 1 });
});

test('a POST before its body parsers are loaded reads its body all the same', async () => {
  const res = await request(t.app)
    .post('/api/v1/cloud-storage/paste-host')
    .set('X-API-Key', t.key)
    .send({ paste: 'hello from a cold start' })
    .expect(200);
  expect(res.body.success).toBe(true);
});

test('an adapter module that is not an adapter fails the warm-up (server/main.ts then stops), naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-warm-'));
  fs.mkdirSync(path.join(dir, 'tools'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  fs.writeFileSync(path.join(dir, 'tools', 'ccgen.js'), 'export const notAnAdapter = 1;\n');
  const broken = await testApp({}, { cold: true, adaptersDir: dir });
  try {
    await expect(broken.api.warm()).rejects.toThrow('adapters/tools/ccgen.js must export a default async function');
  } finally {
    await broken.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
