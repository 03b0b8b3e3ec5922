// The file key store: keys stored hashed under DATA_DIR, kept across restarts, revocable; the keys CLI's
// building blocks; API_KEYS_FILE validation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { testApp } from './helpers/app.js';
import { FileKeyStore, newKey, record, hashKey } from '../engine/keystore.js';
import { loadKeysFile } from '../engine/keys-file.js';
import { loadCatalog } from '../engine/catalog.js';
import { loadConfig } from '../engine/config.js';

test('a personal key works, survives a restart, is stored only as a hash, and can be revoked', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-keys-'));
  const key = newKey();
  const rec = record(key, 'premium', 'Alice');
  await new FileKeyStore(path.join(dataDir, 'keys.json')).save(rec);
  expect(fs.readFileSync(path.join(dataDir, 'keys.json'), 'utf8')).not.toContain(key);
  expect(fs.readFileSync(path.join(dataDir, 'keys.json'), 'utf8')).toContain(hashKey(key));

  let t = await testApp({}, { dataDir });
  expect((await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: key, bin: '457173' })).headers['x-ratelimit-limit']).toBe('5000');
  await t.close();

  t = await testApp({}, { dataDir });
  expect((await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: key, bin: '457173' })).status).toBe(200);
  expect(await t.api.keys.remove(rec.id)).toBe(true);
  await t.close();

  t = await testApp({}, { dataDir });
  expect((await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: key, bin: '457173' })).status).toBe(401);
  await t.close();
});

test('API_KEYS_FILE entries are checked', () => {
  const plans = loadCatalog(loadConfig({}).catalogDir).plans;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'uua-kf-')), 'keys.yaml');
  fs.writeFileSync(file, '- { key: short, plan: premium }\n');
  expect(() => loadKeysFile(file, plans)).toThrow(/entry 1: key must be a string of 8\+ characters/);
  fs.writeFileSync(file, '- { key: long-enough-key, plan: gold }\n');
  expect(() => loadKeysFile(file, plans)).toThrow(/plan must be one of free, premium, enterprise, anonymous/);
});
