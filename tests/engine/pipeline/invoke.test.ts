// The invoke step (engine/pipeline/steps/invoke.ts) as a step: it goes on exactly once, with the outcome in
// call.outcome or with an error; the deadline answers a provider that is late, and the late answer is
// dropped; a provider's odd failures (a throw before its promise, a rejection with nothing) are still
// failures. On fake timers, so the deadline is exact whatever the machine's pace.
import { jest } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Call } from '../../../engine/pipeline/call.js';
import type { EndpointSpec } from '../../../engine/catalog/load.js';
import { ApiError } from '../../../engine/errors.js';
import { createLogger } from '../../../engine/infra/logger.js';
import { invoker } from '../../../engine/pipeline/steps/invoke.js';
import { createMemo } from '../../../engine/upstream/memo.js';
import type { Adapter } from '../../../engine/types.js';

const deps = {
  log: createLogger('silent'),
  publicUrl: 'http://x',
  userAgent: 't',
  allowPrivateFetch: false,
  upstream: () => {
    throw new Error('no upstream here');
  },
  blobs: undefined as never,
  memo: createMemo(),
};

/** Runs the step once for an endpoint of `adapters` under `timeout`; `steps` lists what next() heard. */
function run(adapters: Adapter[], timeout = '1s') {
  const spec = { id: 'test/invoke', method: 'GET', params: {}, upstream: 'embedded', timeout } as unknown as EndpointSpec;
  const invoke = invoker(
    spec,
    adapters.map((adapter, i) => ({ adapter, upstream: `up${i}` })),
    deps,
  );
  const req = { headers: {}, method: 'GET', socket: {} } as unknown as IncomingMessage;
  const call = new Call('test/invoke', '/x', null, req, { writableFinished: false } as ServerResponse, {
    observe: () => {},
    trust: () => false,
  });
  call.input = { raw: {}, files: {} };
  call.params = {};
  const heard: unknown[] = [];
  invoke(call, (err) => {
    heard.push(err === undefined ? call.outcome : err);
  });
  return { call, heard };
}

/** Lets settled promises run their callbacks. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  // Deadlines are set at the end of the loop turn, all of a turn's calls by one Immediate: a fake one left
  // pending would hold back the next test's.
  jest.runOnlyPendingTimers();
  jest.useRealTimers();
});

test('an answer goes on once, in call.outcome, its source the provider that gave it', async () => {
  const { heard } = run([async () => ({ n: 1 })]);
  await settle();
  expect(heard).toEqual([{ data: { n: 1 }, source: 'up0', cacheable: true, cached: false }]);
});

test('guard: an answer made in process sets no timer; a call still running when its turn ends gets one, for the time it has left', async () => {
  const { heard } = run([async () => ({ n: 1 })]);
  await settle();
  expect(heard).toHaveLength(1);
  expect(jest.getTimerCount()).toBe(1); // the turn's end, nothing else
  jest.runOnlyPendingTimers();
  expect(jest.getTimerCount()).toBe(0);
  const late = run([() => new Promise(() => {})], '200ms');
  jest.advanceTimersByTime(50);
  expect(jest.getTimerCount()).toBe(1); // its deadline, set at the turn's end (after 0 ms here)
  jest.advanceTimersByTime(149);
  expect(late.heard).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(late.heard).toEqual([expect.objectContaining({ code: 'upstream_timeout' })]);
});

test('a late provider: the deadline answers upstream_timeout and aborts it; its answer afterwards is dropped', async () => {
  let signal: AbortSignal | undefined;
  const late: Adapter = (_p, ctx) => {
    signal = ctx.signal;
    return new Promise((ok) => setTimeout(() => ok({ late: true }), 500));
  };
  const { heard } = run([late], '200ms');
  jest.advanceTimersByTime(199);
  await settle();
  expect(heard).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(heard).toHaveLength(1);
  expect(heard[0]).toMatchObject({ code: 'upstream_timeout' });
  expect(signal?.aborted).toBe(true);
  jest.advanceTimersByTime(1000);
  await settle();
  expect(heard).toHaveLength(1);
});

test('a provider that throws before its promise, or rejects with nothing, fails the call', async () => {
  const throws = run([
    () => {
      throw new ApiError('bad_input', 'no');
    },
  ]);
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the odd rejection under test
  const empty = run([() => Promise.reject(undefined)]);
  await settle();
  expect(throws.heard).toEqual([expect.objectContaining({ code: 'bad_input' })]);
  expect(empty.heard).toEqual([expect.any(Error)]);
});

test('the next provider answers when the first fails; an endpoint with none answers not_implemented', async () => {
  const second = run([() => Promise.reject(new ApiError('upstream_failed', 'down')), async () => ({ n: 2 })]);
  const none = run([]);
  await settle();
  expect(second.heard).toEqual([expect.objectContaining({ data: { n: 2 }, source: 'up1' })]);
  expect(none.heard).toEqual([expect.objectContaining({ code: 'not_implemented' })]);
});
