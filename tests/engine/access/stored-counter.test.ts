// The durable in-process counter of the embedded default: what it counted reaches SQLite within a second
// and on close, and a new counter on the same file (a restarted server) continues every open window.
import pino from 'pino';
import { jest } from '@jest/globals';
import { SqliteStore } from '../../../engine/store/sqlite.js';
import { StoredCounter } from '../../../engine/access/stored-counter.js';
import type { Store } from '../../../engine/store/types.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const tmpDir = tmpDirs('uua-counter-');
const log = pino({ level: 'silent' });
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

function storeAt(dir: string): Store {
  const s = new SqliteStore(`${dir}/uua.sqlite`);
  open.push(s);
  return s;
}

async function counterOn(store: Store, windowMs = 60_000) {
  const c = new StoredCounter(windowMs, store, 'rl:test', log);
  open.push(c);
  await c.load();
  return c;
}

test('a restart continues every open window: hits and refunds, with the same reset', async () => {
  const dir = tmpDir();
  const before = await counterOn(storeAt(dir));
  for (let i = 0; i < 7; i++) before.hit('k1');
  before.refund('k1');
  const { resetAt } = before.hit('k2');
  await before.close(); // SIGTERM: what is left is written
  const after = await counterOn(storeAt(dir));
  expect(after.peek('k1')).toEqual({ hits: 6, resetAt: expect.any(Number) });
  expect(after.peek('k2')).toEqual({ hits: 1, resetAt });
  expect(after.hit('k1').hits).toBe(7);
});

test('counts reach the store within a second without a close (the bound of a kill -9)', async () => {
  const dir = tmpDir();
  const store = storeAt(dir);
  const c = await counterOn(store);
  c.hit('k1');
  c.hit('k1');
  const until = Date.now() + 1500;
  let seen: [string, unknown][] = [];
  while (Date.now() < until && !seen.length) {
    await new Promise((r) => setTimeout(r, 50));
    seen = await store.tempEntries('rl:test');
  }
  expect(seen).toEqual([['k1', { hits: 2, resetAt: expect.any(Number) }]]);
  // Another process reading the file (a restarted server) sees them.
  expect((await counterOn(storeAt(dir))).peek('k1')?.hits).toBe(2);
});

test('closed windows are neither kept nor read back', async () => {
  const dir = tmpDir();
  const c = await counterOn(storeAt(dir), 50);
  c.hit('short');
  await c.flush();
  await new Promise((r) => setTimeout(r, 80));
  expect((await counterOn(storeAt(dir), 50)).peek('short')).toBeUndefined();
});

test('a failed write is logged and retried with the next one', async () => {
  const dir = tmpDir();
  const store = storeAt(dir);
  const warn = jest.fn();
  const c = new StoredCounter(60_000, store, 'rl:test', { warn });
  open.push(c);
  const write = jest.spyOn(store, 'write').mockRejectedValueOnce(new Error('disk full'));
  c.hit('k1');
  await c.flush();
  expect(warn).toHaveBeenCalledWith({ err: 'disk full', counter: 'rl:test' }, 'counter: write failed');
  await c.flush();
  expect(write).toHaveBeenCalledTimes(2);
  expect(await store.tempEntries('rl:test')).toEqual([['k1', { hits: 1, resetAt: expect.any(Number) }]]);
});
