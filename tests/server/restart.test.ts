// Nothing counted is lost on a restart of the embedded default (SQLite under DATA_DIR, no Redis): after a
// SIGTERM the next answer's X-RateLimit-Remaining continues exactly; after a kill -9 at most the last
// second of counts is lost (the counters are written once a second: docs/decisions/account-allowance.md). Runs the build
// `npm test` makes first (dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../helpers/server-process.js';

const KEY = 'restart-test-premium-key-01';
const LIMIT = 20;

function dataDir(): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-restart-'));
  fs.writeFileSync(path.join(dir, 'keys.yaml'), `- { key: ${KEY}, plan: premium, name: restart }\n`);
  return { DATA_DIR: dir, API_KEYS_FILE: path.join(dir, 'keys.yaml'), PLAN_PREMIUM_LIMIT: String(LIMIT), LOG_LEVEL: 'info' };
}

async function remainingAfter(url: string, calls: number): Promise<number> {
  let remaining = NaN;
  for (let i = 0; i < calls; i++) {
    const res = await fetch(`${url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': KEY } });
    expect(res.status).toBe(200);
    remaining = Number(res.headers.get('x-ratelimit-remaining'));
  }
  return remaining;
}

test('SIGTERM, then a new start: the count continues exactly, with the same reset', async () => {
  const env = dataDir();
  const first = await startServer(env);
  expect(await remainingAfter(first.url, 7)).toBe(LIMIT - 7);
  const reset = (await fetch(`${first.url}/api/v1/account/usage`, { headers: { 'X-API-Key': KEY } })).headers.get('x-ratelimit-reset');
  expect(await first.stop('SIGTERM')).toBe(0);

  const second = await startServer(env);
  const res = await fetch(`${second.url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': KEY } });
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 8));
  expect(res.headers.get('x-ratelimit-reset')).toBe(reset);
  await second.stop('SIGTERM');
});

test('kill -9: the counts of more than a second ago are kept, at most the last second is lost', async () => {
  const env = dataDir();
  const first = await startServer(env);
  await remainingAfter(first.url, 5);
  await new Promise((r) => setTimeout(r, 1_200)); // one write of the counters has happened since
  await remainingAfter(first.url, 3); // these may be lost
  await first.stop('SIGKILL');

  const second = await startServer(env);
  const left = await remainingAfter(second.url, 1);
  // Counted before: 5 for sure, and 0 to 3 of the last second; then this call.
  expect(left).toBeLessThanOrEqual(LIMIT - 5 - 1);
  expect(left).toBeGreaterThanOrEqual(LIMIT - 8 - 1);
  await second.stop('SIGTERM');
});
