// Personal keys: stored hashed in DATA_DIR/uua.sqlite, kept across restarts, rotated with a grace period,
// revoked; the key format's checksum; keys.json of earlier versions imported; the CLI's changes live in a
// running server within a second; API_KEYS_FILE validation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { testApp, type TestApp } from '../../helpers/app.js';
import { newKey, record, hashKey, plausibleKey, KEY_PREFIX } from '../../../engine/access/keystore.js';
import { loadKeysFile } from '../../../engine/access/keys-file.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';

const run = promisify(execFile);
const ccgen = '/api/v1/tools/ccgen';
const call = (t: TestApp, key: string) => request(t.app).get(ccgen).query({ apikey: key, bin: '457173' });
const tmp = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `uua-${name}-`));

async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('keys look like uua_ + 30 random base62 + a 6-character checksum; a broken checksum is refused', () => {
  const key = newKey();
  expect(key).toMatch(new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{36}$`));
  expect(plausibleKey(key)).toBe(true);
  const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
  expect(plausibleKey(typo)).toBe(false);
  expect(plausibleKey('test-premium-key-0001')).toBe(true); // other shapes are looked up as they are
  expect(new Set(Array.from({ length: 200 }, newKey)).size).toBe(200);
});

test('a personal key works, survives a restart, is stored only as a hash, and can be revoked', async () => {
  const dataDir = tmp('keys');
  let t = await testApp({}, { dataDir });
  const { key, record: rec } = await t.api.keys.issue('premium', 'Alice');
  expect(rec.hint).toBe(`${key.slice(0, 8)}…${key.slice(-4)}`);
  expect((await call(t, key)).headers['x-ratelimit-limit']).toBe('5000');
  await t.close();
  const db = fs
    .readdirSync(dataDir)
    .filter((f) => f.startsWith('uua.sqlite'))
    .map((f) => fs.readFileSync(path.join(dataDir, f)).toString('latin1'))
    .join('');
  expect(db).toContain(hashKey(key));
  expect(db).not.toContain(key);

  t = await testApp({}, { dataDir });
  expect((await call(t, key)).status).toBe(200);
  expect(await t.api.keys.revoke(rec.id)).toBe(true);
  expect((await call(t, key)).status).toBe(401); // at once, though the key was looked up a moment ago
  await t.close();

  t = await testApp({}, { dataDir });
  expect((await call(t, key)).status).toBe(401);
  await t.close();
});

test('a rotated key is replaced at once; the old one works through its grace period only', async () => {
  const t = await testApp();
  try {
    const a = await t.api.keys.issue('enterprise', 'CI');
    expect((await call(t, a.key)).status).toBe(200);
    const b = (await t.api.keys.rotate(a.record.id, 60_000))!;
    expect(b.record.name).toBe('CI');
    expect((await call(t, b.key)).headers['x-ratelimit-limit']).toBe('50000');
    expect((await call(t, a.key)).status).toBe(200); // in its grace period
    const c = (await t.api.keys.rotate(b.record.id, 0))!;
    expect((await call(t, b.key)).status).toBe(401); // no grace: refused at once
    expect((await call(t, c.key)).status).toBe(200);
    // A grace long enough for the next call to land inside it on a busy machine, short enough to wait out.
    const d = (await t.api.keys.rotate(c.record.id, 2000))!;
    expect((await call(t, c.key)).status).toBe(200);
    expect(await within(10_000, async () => (await call(t, c.key)).status === 401)).toBe(true);
    expect((await call(t, d.key)).status).toBe(200);
  } finally {
    await t.close();
  }
});

test("a key's own cap and expiry, set by its holder: enforced, kept through a rotation, cleared on demand", async () => {
  const t = await testApp();
  try {
    const a = await t.api.keys.issue('enterprise', 'capped', 'acct-cap');
    expect(await t.api.keys.setLimits(a.record.id, { cap: 2 })).toMatchObject({ cap: 2 });
    const first = await call(t, a.key);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-policy']).toMatch(/^"enterprise"; q=50000; w=86400; pk=:[^:]+:, "key"; q=2; w=86400; pk=:[^:]+:$/);
    await call(t, a.key);
    expect((await call(t, a.key)).status).toBe(429);
    // The rotated key keeps the cap, and its count: the cap counts per key, so the new key starts afresh.
    const b = (await t.api.keys.rotate(a.record.id, 60_000))!;
    expect(b.record.cap).toBe(2);
    expect((await call(t, b.key)).headers['x-ratelimit-remaining']).toBe('1');
    // The old key in its grace period: its expiry is the rotation's, not the holder's to move.
    expect(await t.api.keys.setLimits(a.record.id, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() })).toBeUndefined();
    // Cleared: the account's allowance again (4 counted so far on it).
    await t.api.keys.setLimits(b.record.id, {});
    expect((await call(t, b.key)).headers).toMatchObject({ 'x-ratelimit-limit': '50000', 'x-ratelimit-remaining': '49995' });
    // An expiry in the past: refused from then on (the identity cache forgets at the announced change).
    await t.api.keys.setLimits(b.record.id, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect((await call(t, b.key)).status).toBe(401);
  } finally {
    await t.close();
  }
});

test('keys.json of earlier versions is imported into the store and keeps working', async () => {
  const dataDir = tmp('legacy');
  const key = 'uua_legacyKeyFromTheFileStoreOfOldxyz';
  fs.writeFileSync(path.join(dataDir, 'keys.json'), JSON.stringify([record(key, 'premium', 'old')]));
  const t = await testApp({}, { dataDir });
  try {
    expect((await call(t, key)).headers['x-ratelimit-limit']).toBe('5000');
    expect(fs.existsSync(path.join(dataDir, 'keys.json'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'keys.json.imported'))).toBe(true);
  } finally {
    await t.close();
  }
});

test('without Redis, a key added by the CLI works in a running server within a second, and a revoked one is refused', async () => {
  const dataDir = tmp('cli');
  const t = await testApp({}, { dataDir });
  const cli = (...args: string[]) =>
    run('npx', ['tsx', 'scripts/keys.ts', ...args], { env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: '' } });
  try {
    const out = (await cli('add', 'premium', 'From the CLI')).stdout;
    const key = /^(uua_\S+)$/m.exec(out)![1];
    const id = /created key ([0-9a-f]{12})/.exec(out)![1];
    expect(await within(1000, async () => (await call(t, key)).status === 200)).toBe(true);
    expect((await cli('list')).stdout).toContain(id);

    await cli('revoke', id);
    expect(await within(1000, async () => (await call(t, key)).status === 401)).toBe(true);
  } finally {
    await t.close();
  }
}, 60_000);

test('API_KEYS_FILE entries are checked', () => {
  const plans = loadCatalog(loadConfig({}).catalogDir).plans;
  const file = path.join(tmp('kf'), 'keys.yaml');
  fs.writeFileSync(file, '- { key: short, plan: premium }\n');
  expect(() => loadKeysFile(file, plans)).toThrow(/entry 1: key must be a string of 8\+ characters/);
  fs.writeFileSync(file, '- { key: long-enough-key, plan: gold }\n');
  expect(() => loadKeysFile(file, plans)).toThrow(/plan must be one of free, premium, enterprise, anonymous/);
});

test('hashKey is SHA-256 hex', () => {
  expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
