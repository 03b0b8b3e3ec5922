// engine/load-once.ts: made once by the first get(), shared by callers meanwhile, then at hand synchronously; a
// failure kept (or, with retry, tried again); forget() starts over.
import { LoadOnce } from '../../engine/load-once.js';

test('callers meanwhile share one making; then the value is at hand', async () => {
  let made = 0;
  const once = new LoadOnce(async () => ({ n: ++made }));
  expect(once.started).toBe(false);
  expect(once.value).toBeUndefined();
  const [a, b] = await Promise.all([once.get(), once.get()]);
  expect(a).toBe(b);
  expect(once.value).toBe(a);
  expect(await once.get()).toBe(a);
  expect(made).toBe(1);
  expect(once.started).toBe(true);
});

test('the first call’s arguments make it; a later call’s are not used', async () => {
  const once = new LoadOnce(async (who: string) => `made for ${who}`);
  const [a, b] = await Promise.all([once.get('first'), once.get('second')]);
  expect([a, b]).toEqual(['made for first', 'made for first']);
});

test('a failure is kept, unless retry is asked: then the next call makes it again', async () => {
  let calls = 0;
  const failing = () => {
    calls++;
    if (calls < 2) throw new Error(`attempt ${calls}`); // a synchronous throw is a rejection all the same
    return Promise.resolve(calls);
  };
  const kept = new LoadOnce(failing);
  await expect(kept.get()).rejects.toThrow('attempt 1');
  await expect(kept.get()).rejects.toThrow('attempt 1');
  expect(calls).toBe(1);
  expect(kept.value).toBeUndefined();

  calls = 0;
  const retried = new LoadOnce(failing, { retry: true });
  await expect(retried.get()).rejects.toThrow('attempt 1');
  expect(retried.started).toBe(false);
  expect(await retried.get()).toBe(2);
  expect(retried.value).toBe(2);
});

test('forget() drops the value: the next call makes a new one', async () => {
  let made = 0;
  const once = new LoadOnce(async () => ++made);
  expect(await once.get()).toBe(1);
  once.forget();
  expect(once.value).toBeUndefined();
  expect(once.started).toBe(false);
  expect(await once.get()).toBe(2);
});
