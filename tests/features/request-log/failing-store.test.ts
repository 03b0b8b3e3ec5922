// A request log whose store fails (every write rejected) or hangs (a write that never answers) costs the
// calls it records nothing: they are answered as before and as fast, and what could not be written is
// written once the store takes writes again.
import fs from 'node:fs';
import { jest } from '@jest/globals';
import request from 'supertest';
import { appForTests, KEYS } from '../../helpers/app.js';
import { LogRecords } from '../../../features/request-log/records.js';

const t = appForTests();
const call = () => request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', KEYS.premium);

/** The median milliseconds of `n` calls, one after another. */
async function median(n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    expect((await call()).status).toBe(200);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

/** Five calls, each answered; `after` runs after each. Their request ids. */
async function fiveCalls(after: () => Promise<unknown> = () => Promise.resolve()): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call();
    expect(res.status).toBe(200);
    ids.push(res.headers['x-request-id']);
    await after();
  }
  return ids;
}

afterEach(() => jest.restoreAllMocks());

test('a store that rejects every write: the calls answer, and their rows are written once it recovers', async () => {
  const failing = jest.spyOn(LogRecords.prototype, 'insert').mockRejectedValue(new Error('SQLITE_IOERR: disk I/O error'));
  const ids = await fiveCalls();
  await t.api.requestLog!.flush();
  await t.api.requestLog!.flush();
  expect(failing).toHaveBeenCalled();
  failing.mockRestore();
  await t.api.requestLog!.flush();
  const records = new LogRecords(t.api.database);
  const kept = (await records.list({ limit: 100 })).rows.filter((r) => ids.includes(r.requestId));
  expect(kept).toHaveLength(5);
});

test("a full disk under the calls' files: the calls answer, and are written once, whole, when there is room again", async () => {
  // One write cut short (the disk filled midway), then none at all.
  const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const writev = jest
    .spyOn(fs, 'writevSync')
    .mockImplementationOnce(() => 7)
    .mockImplementation(() => {
      throw full();
    });
  const ids = await fiveCalls(() => t.api.requestLog!.flush());
  // Each flush tried (the timer's too, now and then) and failed.
  expect(writev.mock.calls.length).toBeGreaterThanOrEqual(5);
  writev.mockRestore();
  await t.api.requestLog!.flush();
  const kept = (await new LogRecords(t.api.database).list({ limit: 100 })).rows.filter((r) => ids.includes(r.requestId));
  expect(kept.map((r) => r.requestId).sort()).toEqual([...ids].sort());
});

test('a store that never answers: the calls are answered as fast as with a working one', async () => {
  const baseline = await median(30);
  // Every write hangs until released; once released, the writes that follow answer at once. (The timer's
  // write may be the one held: the flush asked for then waits for it, and writes what came since after it.)
  const held: (() => void)[] = [];
  let released = false;
  const hung = jest
    .spyOn(LogRecords.prototype, 'insert')
    .mockImplementation(() => (released ? Promise.resolve() : new Promise<void>((r) => held.push(r))));
  expect((await call()).status).toBe(200);
  const flushing = t.api.requestLog!.flush(); // held by the store from now on
  const slowed = await median(30);
  // One write at a time: the hung one holds the others back.
  expect(hung).toHaveBeenCalledTimes(1);
  // Within noise of the working store (a few ms on a shared machine), not held by the write.
  expect(slowed).toBeLessThan(baseline * 2 + 5);
  released = true;
  for (const r of held) r();
  await flushing;
});
