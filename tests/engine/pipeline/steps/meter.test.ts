// The meter without an app around it, on a clock the test moves: the exact numbers of every limit header
// (Retry-After and the reset in seconds, the draft-8 partition key by value), the counter each plan's
// `keyedBy` picks (per key, per key and client address, shared), refunds, the auth-fail allowance, and
// the allowance read without counting (usage pages, peekMeter).
import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import pino from 'pino';
import { ApiError } from '../../../../engine/errors.js';
import type { PlanSpec } from '../../../../engine/catalog/load.js';
import { MemoryCounter } from '../../../../engine/access/counter.js';
import { connectRedis } from '../../../../engine/infra/redis.js';
import { createMeter, counterKey, AUTH_FAIL_PLAN } from '../../../../engine/pipeline/steps/meter.js';
import type { Identity } from '../../../../engine/access/identify.js';
import { AccountEvents, type AccountEvent } from '../../../../engine/access/account-events.js';
import path from 'node:path';
import { SqliteStore } from '../../../../engine/store/sqlite.js';
import { tmpDirs } from '../../../helpers/tmp-dirs.js';

const tmpDir = tmpDirs('uua-meter-');
/** An account's key (and its own cap), as identify answers it. */
const of = (plan: string, keyId: string, accountId?: string, cap?: number): Identity => ({
  status: 'ok',
  plan,
  keyId,
  ...(accountId && { accountId }),
  ...(cap && { cap }),
});
import type { Call } from '../../../../engine/pipeline/call.js';

const plans: Record<string, PlanSpec> = {
  premium: { id: 'premium', limit: 2, window: '1m', keyedBy: 'key', description: 'per key' },
  enterprise: { id: 'enterprise', limit: 5, window: '1m', keyedBy: 'key', description: 'per key, more' },
  free: { id: 'free', limit: 2, window: '1m', keyedBy: 'key+ip', description: 'per key and client address' },
  anonymous: { id: 'anonymous', limit: 2, window: '1m', keyedBy: 'shared', description: 'one for all' },
};

// Half a second past a whole second: a ceiling and a floor of the seconds left differ.
const START = 1_700_000_000_500;
let now: number;
let meters: ReturnType<typeof createMeter>[];
beforeEach(() => {
  now = START;
  jest.spyOn(Date, 'now').mockImplementation(() => now);
  meters = [];
});
afterEach(async () => {
  await Promise.all(meters.map((m) => m.close()));
  jest.restoreAllMocks();
});

const log = pino({ level: 'silent' });

function meterOf(authFailLimit = 3) {
  const m = createMeter({ plans, authFailLimit, log, prefix: 'test:' });
  meters.push(m);
  return m;
}

const ok = (plan: string, keyId: string): Identity => ({ status: 'ok', plan, keyId });

/** The part of a Call the meter uses: who, from where, and the headers it writes. */
function callOf(identity: Identity, ip: string | undefined = '203.0.113.1') {
  const headers: string[] = [];
  const call = {
    identity,
    ip,
    headers,
    usageKey: undefined as string | undefined,
    refund: undefined as (() => unknown) | undefined,
    header: (name: string, value: string) => void headers.push(name, value),
  };
  return call;
}
type FakeCall = ReturnType<typeof callOf>;

/** Runs a step on a call: what it passed to next (undefined to go on), and the headers it wrote. */
async function step(run: (call: Call, next: (err?: unknown) => void) => void, call: FakeCall) {
  const err = await new Promise<unknown>((resolve) => run(call as unknown as Call, resolve));
  const h: Record<string, string> = {};
  for (let i = 0; i < call.headers.length; i += 2) h[call.headers[i]] = call.headers[i + 1];
  call.headers.length = 0;
  return { err, h };
}

/** The draft-8 partition key of a counter: the first 12 hex digits of its SHA-256, as base64. */
const pk = (counter: string) => Buffer.from(crypto.createHash('sha256').update(counter).digest('hex').slice(0, 12)).toString('base64');

describe('the limit headers', () => {
  test('a counted request carries every header with its exact value', async () => {
    const { meter } = meterOf();
    const call = callOf(ok('premium', 'k1'));
    const { err, h } = await step(meter, call);
    expect(err).toBeUndefined();
    expect(h).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
      'X-RateLimit-Reset': '1700000061', // (START + 60 s) / 1000, rounded up
      RateLimit: '"premium"; r=1; t=60',
      // pk by value: the first 12 hex digits of SHA-256("k1"), 6ab9f1eb8f7d, as base64.
      'RateLimit-Policy': '"premium"; q=2; w=60; pk=:NmFiOWYxZWI4Zjdk:',
    });
    expect(pk('k1')).toBe('NmFiOWYxZWI4Zjdk');
    expect(call.usageKey).toBe('key:k1');
  });

  test('the seconds left are rounded up, and shrink as the window runs', async () => {
    const { meter } = meterOf();
    await step(meter, callOf(ok('premium', 'k1')));
    now += 20_500;
    const { h } = await step(meter, callOf(ok('premium', 'k1')));
    expect(h.RateLimit).toBe('"premium"; r=0; t=40'); // 39.5 s left
    expect(h['X-RateLimit-Reset']).toBe('1700000061'); // the window's end does not move
    expect(h['X-RateLimit-Remaining']).toBe('0');
  });

  test('past the limit: 429 with Retry-After the exact seconds to the reset, and the headers', async () => {
    const { meter } = meterOf();
    for (let i = 0; i < 2; i++) expect((await step(meter, callOf(ok('premium', 'k1')))).err).toBeUndefined();
    now += 20_500;
    const call = callOf(ok('premium', 'k1'));
    const { err, h } = await step(meter, call);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'quota', status: 429, message: 'Rate limit exceeded. Try again later.' });
    const retryAfter = (err as ApiError).headers['Retry-After'];
    expect(retryAfter).toBe('40');
    // The reset, in epoch seconds, less the time now is what Retry-After says.
    expect(Number(h['X-RateLimit-Reset']) - Math.floor(now / 1000)).toBe(Number(retryAfter));
    expect(h.RateLimit).toBe('"premium"; r=0; t=40');
    expect(h['X-RateLimit-Remaining']).toBe('0');
    expect(call.refund).toBeUndefined(); // a blocked request has nothing to give back
    now += 39_000; // 0.5 s left: still one second to wait
    expect(((await step(meter, callOf(ok('premium', 'k1')))).err as ApiError).headers).toEqual({ 'Retry-After': '1' });
  });

  test('blocked requests count too: a spent allowance is not refilled by hammering it', async () => {
    const { meter } = meterOf();
    const first = callOf(ok('premium', 'k1'));
    await step(meter, first);
    await step(meter, callOf(ok('premium', 'k1')));
    for (let i = 0; i < 3; i++) expect((await step(meter, callOf(ok('premium', 'k1')))).err).toBeInstanceOf(ApiError);
    // Five counted: one given back still leaves four, past the limit of two.
    await first.refund!();
    expect((await step(meter, callOf(ok('premium', 'k1')))).err).toBeInstanceOf(ApiError);
  });

  test('a new window opens when the old one ends', async () => {
    const { meter } = meterOf();
    for (let i = 0; i < 3; i++) await step(meter, callOf(ok('premium', 'k1')));
    now += 60_000;
    const { err, h } = await step(meter, callOf(ok('premium', 'k1')));
    expect(err).toBeUndefined();
    expect(h['X-RateLimit-Remaining']).toBe('1');
    expect(h['X-RateLimit-Reset']).toBe('1700000121');
  });
});

describe('refunds', () => {
  test("a passed request's refund gives it back to its own counter", async () => {
    const { meter } = meterOf();
    const first = callOf(ok('premium', 'k1'));
    await step(meter, first);
    await step(meter, callOf(ok('premium', 'other')));
    await first.refund!();
    const { h } = await step(meter, callOf(ok('premium', 'k1')));
    expect(h['X-RateLimit-Remaining']).toBe('1'); // 2 - (1 - 1 + 1)
  });
});

describe('which counter a request counts on', () => {
  test('a per-key plan: one key from two client addresses shares one count', async () => {
    const { meter } = meterOf();
    expect((await step(meter, callOf(ok('premium', 'k1'), '203.0.113.1'))).h['X-RateLimit-Remaining']).toBe('1');
    const second = callOf(ok('premium', 'k1'), '198.51.100.9');
    expect((await step(meter, second)).h['X-RateLimit-Remaining']).toBe('0');
    expect(second.usageKey).toBe('key:k1');
    expect((await step(meter, callOf(ok('premium', 'k1'), '192.0.2.4'))).err).toBeInstanceOf(ApiError);
    // Another key has its own.
    expect((await step(meter, callOf(ok('premium', 'k2'), '203.0.113.1'))).h['X-RateLimit-Remaining']).toBe('1');
  });

  test('a per key and address plan: the same key from two addresses gets two counts', async () => {
    const { meter } = meterOf();
    const a = callOf(ok('free', 'free'), '203.0.113.1');
    const { h } = await step(meter, a);
    expect(h['X-RateLimit-Remaining']).toBe('1');
    expect(h['RateLimit-Policy']).toBe(`"free"; q=2; w=60; pk=:${pk('free:203.0.113.1')}:`);
    expect(a.usageKey).toBe('free:free:203.0.113.1');
    expect((await step(meter, callOf(ok('free', 'free'), '198.51.100.9'))).h['X-RateLimit-Remaining']).toBe('1');
    expect((await step(meter, callOf(ok('free', 'free'), '203.0.113.1'))).h['X-RateLimit-Remaining']).toBe('0');
  });

  test('a shared plan: every key and address on one count', async () => {
    const { meter } = meterOf();
    const a = callOf(ok('anonymous', 'anonymous'), '203.0.113.1');
    await step(meter, a);
    expect(a.usageKey).toBe('anonymous:all');
    expect((await step(meter, callOf(ok('anonymous', 'other'), '198.51.100.9'))).h['X-RateLimit-Remaining']).toBe('0');
  });

  test('counterKey: IPv6 clients are counted by their /56, an unknown address as 0.0.0.0', () => {
    const ip = jest.fn((): string | undefined => '2001:db8:1:2:3::4');
    expect(counterKey(plans.free, { keyId: 'free' }, ip)).toBe('free:2001:db8:1::/56');
    expect(counterKey(plans.free, { keyId: 'free' }, () => undefined)).toBe('free:0.0.0.0');
    // The address is asked only of plans that count by it.
    ip.mockClear();
    expect(counterKey(plans.premium, { keyId: 'k1' }, ip)).toBe('k1');
    expect(counterKey(plans.anonymous, { keyId: 'k1' }, ip)).toBe('all');
    expect(ip).not.toHaveBeenCalled();
  });

  test('missing and invalid keys count on the auth-fail allowance, per client address, 15 minutes long', async () => {
    const { meter } = meterOf(1);
    const call = callOf({ status: 'invalid' }, '203.0.113.1');
    const { err, h } = await step(meter, call);
    expect(err).toBeUndefined();
    expect(call.usageKey).toBeUndefined(); // no usage history for a key that is not one
    expect(h).toEqual({
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil((START + 900_000) / 1000)),
      RateLimit: `"${AUTH_FAIL_PLAN}"; r=0; t=900`,
      'RateLimit-Policy': `"auth-fail"; q=1; w=900; pk=:${pk('-:203.0.113.1')}:`,
    });
    const blocked = await step(meter, callOf({ status: 'missing' }, '203.0.113.1'));
    expect((blocked.err as ApiError).headers['Retry-After']).toBe('900');
    expect((await step(meter, callOf({ status: 'missing' }, '203.0.113.2'))).err).toBeUndefined();
  });

  test('a plan the meter does not know is an internal error', async () => {
    const { meter, peekMeter } = meterOf();
    for (const run of [meter, peekMeter]) {
      const { err, h } = await step(run, callOf(ok('gold', 'k1')));
      expect(err).toMatchObject({ code: 'internal', message: 'Unknown plan gold' });
      expect(h).toEqual({});
    }
  });
});

describe("an account's keys", () => {
  test("share the account's one allowance, whichever key calls; the headers carry the account's figures", async () => {
    const { meter, allowance } = meterOf();
    const a = await step(meter, callOf(of('premium', 'k1', 'a1')));
    expect(a.h).toMatchObject({ 'X-RateLimit-Remaining': '1', 'RateLimit-Policy': `"premium"; q=2; w=60; pk=:${pk('acct:a1')}:` });
    expect((await step(meter, callOf(of('premium', 'k2', 'a1')))).h['X-RateLimit-Remaining']).toBe('0');
    // The call past the allowance is refused whichever key makes it, a new key (a rotation) included.
    for (const key of ['k1', 'k2', 'k3'])
      expect((await step(meter, callOf(of('premium', key, 'a1')))).err).toMatchObject({ code: 'quota' });
    // Another account, and a key without an account, count on their own.
    expect((await step(meter, callOf(of('premium', 'k4', 'a2')))).h['X-RateLimit-Remaining']).toBe('1');
    expect((await step(meter, callOf(of('premium', 'k1')))).h['X-RateLimit-Remaining']).toBe('1');
    expect(await allowance('premium', { keyId: 'k9', accountId: 'a1' }, undefined)).toMatchObject({ used: 2, remaining: 0 });
  });

  test('a plan change carries the count over (plans of one window share the accounts’ counter)', async () => {
    const { meter } = meterOf();
    await step(meter, callOf(of('premium', 'k1', 'a1')));
    await step(meter, callOf(of('premium', 'k1', 'a1')));
    const { h } = await step(meter, callOf(of('enterprise', 'k1', 'a1')));
    expect(h).toMatchObject({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '2', RateLimit: '"enterprise"; r=2; t=60' });
  });

  test("a key's own cap is counted beside the account's; the nearer limit is the one the headers tell", async () => {
    const { meter, peekMeter } = meterOf();
    const first = callOf(of('enterprise', 'k1', 'a1', 1));
    const { err, h } = await step(meter, first);
    expect(err).toBeUndefined();
    expect(h).toEqual({
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000061',
      RateLimit: '"key"; r=0; t=60',
      'RateLimit-Policy': `"enterprise"; q=5; w=60; pk=:${pk('acct:a1')}:, "key"; q=1; w=60; pk=:${pk('key:k1')}:`,
    });
    now += 10_000;
    const capped = await step(meter, callOf(of('enterprise', 'k1', 'a1', 1)));
    expect(capped.err).toMatchObject({ code: 'quota', headers: { 'Retry-After': '50' } });
    // The account's other key is not capped: it sees the account's figures (two counted so far).
    expect((await step(meter, callOf(of('enterprise', 'k2', 'a1')))).h).toMatchObject({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '2',
    });
    // A refund gives the request back to both counters.
    await first.refund!();
    expect((await step(peekMeter, callOf(of('enterprise', 'k2', 'a1')))).h['X-RateLimit-Remaining']).toBe('3');
    expect((await step(meter, callOf(of('enterprise', 'k1', 'a1', 1)))).err).toMatchObject({ code: 'quota' }); // cap: 1 + 1 again
  });

  test("a key's cap is counted per key whatever its plan: an upgrade does not refill it", async () => {
    const { meter, keyUse } = meterOf();
    expect((await step(meter, callOf(of('premium', 'k1', 'a1', 1)))).err).toBeUndefined();
    expect((await step(meter, callOf(of('premium', 'k1', 'a1', 1)))).err).toMatchObject({ code: 'quota' });
    // On Enterprise the account has room (2 of 5), the key's cap none.
    const upgraded = await step(meter, callOf(of('enterprise', 'k1', 'a1', 1)));
    expect(upgraded.err).toMatchObject({ code: 'quota' });
    expect(upgraded.h).toMatchObject({ 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0' });
    expect(await keyUse('enterprise', { keyId: 'k1', accountId: 'a1', cap: 1 })).toEqual({ used: 3, cap: 1, resetAt: START + 60_000 });
  });

  test("each key of an account has its own count beside the account's one allowance", async () => {
    const { meter, allowance, keyUse } = meterOf();
    for (const k of ['k1', 'k1', 'k2', 'k2']) expect((await step(meter, callOf(of('enterprise', k, 'a1')))).err).toBeUndefined();
    expect(await allowance('enterprise', { keyId: '-', accountId: 'a1' }, undefined)).toMatchObject({ limit: 5, used: 4 });
    expect(await keyUse('enterprise', { keyId: 'k1', accountId: 'a1' })).toEqual({ used: 2, resetAt: START + 60_000 });
    expect(await keyUse('enterprise', { keyId: 'k2', accountId: 'a1' })).toEqual({ used: 2, resetAt: START + 60_000 });
    expect(await keyUse('enterprise', { keyId: 'k3', accountId: 'a1' })).toEqual({ used: 0 });
    // A key without an account has none to be a share of.
    expect(await keyUse('enterprise', { keyId: 'k1' })).toBeUndefined();
  });

  test("a cap equal to the account's allowance: on a tie the headers are the account's", async () => {
    const { meter } = meterOf();
    const { h } = await step(meter, callOf(of('enterprise', 'k1', 'a1', 5)));
    expect(h).toMatchObject({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '4', RateLimit: '"enterprise"; r=4; t=60' });
    expect(h['RateLimit-Policy']).toBe(`"enterprise"; q=5; w=60; pk=:${pk('acct:a1')}:, "key"; q=5; w=60; pk=:${pk('key:k1')}:`);
  });

  test("a capped key's refund gives the request back to its cap too", async () => {
    const { meter } = meterOf();
    const first = callOf(of('enterprise', 'k1', 'a1', 2));
    await step(meter, first);
    await first.refund!();
    // Cap 2: one counted, one given back; the next two pass (a refund to the account only would refuse the second).
    expect((await step(meter, callOf(of('enterprise', 'k1', 'a1', 2)))).err).toBeUndefined();
    expect((await step(meter, callOf(of('enterprise', 'k1', 'a1', 2)))).err).toBeUndefined();
  });

  test('a capped key tells its account of 80% and 100% too', async () => {
    const events = new AccountEvents();
    const heard: string[] = [];
    events.on((e) => void heard.push(e.type));
    const m = createMeter({ plans, authFailLimit: 3, log, prefix: 'test:', events });
    meters.push(m);
    for (let i = 0; i < 5; i++) await step(m.meter, callOf(of('enterprise', `k${i}`, 'a1', 3)));
    expect(heard).toEqual(['quota.warning', 'quota.exhausted']);
  });

  test('a capped key past its cap but within the account: 429 with the seconds to the cap’s reset', async () => {
    const { meter } = meterOf();
    await step(meter, callOf(of('enterprise', 'k1', 'a1', 1)));
    now += 30_000;
    const { err, h } = await step(meter, callOf(of('enterprise', 'k1', 'a1', 1)));
    expect(err).toMatchObject({ code: 'quota', headers: { 'Retry-After': '30' } });
    expect(h).toMatchObject({ 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0', RateLimit: '"key"; r=0; t=30' });
  });

  test('the account hears its allowance reach 80% and 100%, once each in a window; keys without an account tell nothing', async () => {
    const events = new AccountEvents();
    const heard: AccountEvent[] = [];
    events.on((e) => void heard.push(e));
    const m = createMeter({ plans, authFailLimit: 3, log, prefix: 'test:', events });
    meters.push(m);
    for (let i = 0; i < 7; i++) await step(m.meter, callOf(of('enterprise', 'k1', 'a1')));
    for (let i = 0; i < 7; i++) await step(m.meter, callOf(of('enterprise', 'k1')));
    const resetAt = new Date(START + 60_000).toISOString();
    expect(heard.map((e) => [e.type, e.accountId, e.data])).toEqual([
      ['quota.warning', 'a1', { plan: 'enterprise', limit: 5, used: 4, resetAt }],
      ['quota.exhausted', 'a1', { plan: 'enterprise', limit: 5, used: 5, resetAt }],
    ]);
  });
});

describe('the allowance without counting', () => {
  test('allowance: a fresh key has all of it, a spent one none, with its window', async () => {
    const { meter, allowance } = meterOf();
    expect(await allowance('premium', { keyId: 'k1' }, undefined)).toEqual({
      plan: 'premium',
      limit: 2,
      used: 0,
      remaining: 2,
      resetAt: START + 60_000,
    });
    await step(meter, callOf(ok('premium', 'k1')));
    now += 1_000;
    expect(await allowance('premium', { keyId: 'k1' }, undefined)).toEqual({
      plan: 'premium',
      limit: 2,
      used: 1,
      remaining: 1,
      resetAt: START + 60_000,
    });
    await step(meter, callOf(ok('premium', 'k1')));
    await step(meter, callOf(ok('premium', 'k1')));
    expect(await allowance('premium', { keyId: 'k1' }, undefined)).toMatchObject({ used: 2, remaining: 0 });
    // Per address where the plan counts so; a plan it does not know has none.
    await step(meter, callOf(ok('free', 'free'), '203.0.113.1'));
    expect(await allowance('free', { keyId: 'free' }, '203.0.113.1')).toMatchObject({ used: 1 });
    expect(await allowance('free', { keyId: 'free' }, '203.0.113.2')).toMatchObject({ used: 0 });
    expect(await allowance('gold', { keyId: 'k1' }, undefined)).toBeUndefined();
  });

  test('peekMeter: a known key gets the headers of its allowance as it stands, and is not counted', async () => {
    const { meter, peekMeter } = meterOf();
    const fresh = await step(peekMeter, callOf(ok('premium', 'k1')));
    expect(fresh.err).toBeUndefined();
    expect(fresh.h).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': '1700000061',
      RateLimit: '"premium"; r=2; t=60',
      'RateLimit-Policy': `"premium"; q=2; w=60; pk=:${pk('k1')}:`,
    });
    await step(meter, callOf(ok('premium', 'k1')));
    now += 10_000;
    const peeked = callOf(ok('premium', 'k1'));
    expect((await step(peekMeter, peeked)).h).toMatchObject({ 'X-RateLimit-Remaining': '1', RateLimit: '"premium"; r=1; t=50' });
    expect(peeked.refund).toBeUndefined();
    expect((await step(meter, callOf(ok('premium', 'k1')))).h['X-RateLimit-Remaining']).toBe('0');
  });

  test("peekMeter: on a per-address plan it is the caller's address's allowance", async () => {
    const { meter, peekMeter } = meterOf();
    await step(meter, callOf(ok('free', 'free'), '203.0.113.1'));
    expect((await step(peekMeter, callOf(ok('free', 'free'), '203.0.113.1'))).h['X-RateLimit-Remaining']).toBe('1');
    expect((await step(peekMeter, callOf(ok('free', 'free'), '198.51.100.9'))).h['X-RateLimit-Remaining']).toBe('2');
  });

  test('peekMeter: a missing or invalid key is metered like any other request', async () => {
    const { peekMeter } = meterOf(1);
    expect((await step(peekMeter, callOf({ status: 'invalid' }))).h['X-RateLimit-Remaining']).toBe('0');
    expect((await step(peekMeter, callOf({ status: 'invalid' }))).err).toMatchObject({ code: 'quota' });
  });

  test("usageKeys: a per-key plan's key has its own partition (and the one earlier builds kept); others the plan's counter", () => {
    const { usageKeys } = meterOf();
    expect(usageKeys('premium', { keyId: 'k1', accountId: 'a1' }, '203.0.113.1')).toEqual(['key:k1', 'premium:k1']);
    expect(usageKeys('free', { keyId: 'free' }, '203.0.113.1')).toEqual(['free:free:203.0.113.1']);
    expect(usageKeys('anonymous', { keyId: 'anonymous' }, '203.0.113.1')).toEqual(['anonymous:all']);
    expect(usageKeys('gold', { keyId: 'k1' }, undefined)).toBeUndefined();
  });
});

test('close() closes the counter of every plan, the auth-fail one and the accounts’ included', async () => {
  const close = jest.spyOn(MemoryCounter.prototype, 'close');
  await meterOf().close();
  expect(close).toHaveBeenCalledTimes(Object.keys(plans).length + 2);
});

describe('kept in the store (the embedded default without Redis)', () => {
  test('a new meter on the same store (a restarted server) continues every count once it is ready', async () => {
    jest.restoreAllMocks(); // the store's expiry runs on the real clock
    const store = new SqliteStore(path.join(tmpDir(), 'uua.sqlite'));
    try {
      const first = createMeter({ plans, authFailLimit: 3, log, prefix: 'test:', store });
      await first.ready;
      await step(first.meter, callOf(of('premium', 'k1', 'a1')));
      await step(first.meter, callOf({ status: 'invalid' }, '203.0.113.1'));
      await first.close();
      const second = createMeter({ plans, authFailLimit: 3, log, prefix: 'test:', store });
      meters.push(second);
      await second.ready;
      expect((await step(second.meter, callOf(of('enterprise', 'k2', 'a1')))).h['X-RateLimit-Remaining']).toBe('3'); // 5 - 2
      expect((await step(second.meter, callOf({ status: 'invalid' }, '203.0.113.1'))).h['X-RateLimit-Remaining']).toBe('1'); // 3 - 2
    } finally {
      await store.close();
    }
  });
});

describe('on Redis', () => {
  beforeEach(() => {
    jest.restoreAllMocks(); // the Redis client keeps its own time
  });

  test('each plan counts in Redis under <prefix>rl:<plan>:<counter>; without a health check, in process', async () => {
    const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log);
    try {
      await redis.whenReady(2000);
      if (!redis.ready()) {
        if (process.env.CI === 'true') throw new Error('Redis is required under CI=true');
        return;
      }
      const prefix = `test-${crypto.randomUUID()}:`;
      const shared = createMeter({ plans, authFailLimit: 3, log, prefix, redis: redis.client, redisHealth: redis });
      meters.push(shared);
      const { err, h } = await step(shared.meter, callOf(ok('free', 'free'), '203.0.113.1'));
      expect(err).toBeUndefined();
      expect(h['X-RateLimit-Remaining']).toBe('1');
      expect(h.RateLimit).toMatch(/^"free"; r=1; t=(59|60)$/);
      expect(await redis.client.get(`${prefix}rl:free:free:203.0.113.1`)).toBe('1');
      const ttl = await redis.client.pTTL(`${prefix}rl:free:free:203.0.113.1`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await step(shared.meter, callOf({ status: 'invalid' }, '203.0.113.1'));
      expect(await redis.client.get(`${prefix}rl:auth-fail:-:203.0.113.1`)).toBe('1');
      // An account's keys, whatever their plan, on the accounts' counter of their window.
      await step(shared.meter, callOf({ status: 'ok', plan: 'premium', keyId: 'k1', accountId: 'a1' }));
      await step(shared.meter, callOf({ status: 'ok', plan: 'enterprise', keyId: 'k2', accountId: 'a1' }));
      expect(await redis.client.get(`${prefix}rl:accounts-60s:acct:a1`)).toBe('2');
      await redis.client.del(`${prefix}rl:accounts-60s:acct:a1`);

      const local = createMeter({ plans, authFailLimit: 3, log, prefix, redis: redis.client });
      meters.push(local);
      await step(local.meter, callOf(ok('premium', 'k1')));
      expect(await redis.client.exists(`${prefix}rl:premium:k1`)).toBe(0);
      await redis.client.del([`${prefix}rl:free:free:203.0.113.1`, `${prefix}rl:auth-fail:-:203.0.113.1`]);
    } finally {
      await redis.close();
    }
  });
});
