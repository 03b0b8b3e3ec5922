// Who is calling, without an app around it: the keys known in process answer at once and never reach the
// store; a personal key is looked up once and then remembered for 30 s (less when its grace period ends
// sooner), forgotten on demand; a store that fails keeps a seen key working and refuses to judge others.
// And where the key is read from: the X-API-Key header, then the query string, then the body.
import { jest } from '@jest/globals';
import crypto from 'node:crypto';
import type { Config } from '../../../engine/config.js';
import { createIdentifier, presentedKey, SEVERAL, type KeyFinder } from '../../../engine/access/identify.js';
import { hashKey, newKey, record, type KeyRecord } from '../../../engine/access/keystore.js';

const config = { freeKey: 'free-key-0001', anonymousKey: 'anonymous-key-0001' } as Config;

let now: number;
let records: Map<string, KeyRecord>;
let failing: boolean;
let find: jest.Mock<KeyFinder['find']>;
beforeEach(() => {
  now = Date.parse('2025-01-01T00:00:00Z');
  jest.spyOn(Date, 'now').mockImplementation(() => now);
  records = new Map();
  failing = false;
  // The store, as a spy: what it is asked is what the cache failed to answer.
  find = jest.fn<KeyFinder['find']>(async (hash) => {
    if (failing) throw new Error('store down');
    return records.get(hash);
  });
});
afterEach(() => {
  jest.restoreAllMocks();
});

/** A personal key the store holds. */
function stored(plan: string, extra: Partial<KeyRecord> = {}): { key: string; rec: KeyRecord } {
  const key = newKey();
  const rec = { ...record(key, plan, 'test'), ...extra };
  records.set(rec.hash, rec);
  return { key, rec };
}

describe('createIdentifier', () => {
  test('no key is missing, and an empty one too; the store is not asked', () => {
    const identify = createIdentifier(config, { find });
    expect(identify(undefined)).toEqual({ status: 'missing' });
    expect(identify('')).toEqual({ status: 'missing' });
    expect(find).not.toHaveBeenCalled();
  });

  test('two keys in one place are ambiguous', () => {
    expect(createIdentifier(config, { find })(SEVERAL)).toEqual({ status: 'ambiguous' });
  });

  test('a key that is not a string, or longer than 256 characters, is invalid without a look-up', () => {
    const identify = createIdentifier(config, { find });
    expect(identify(42)).toEqual({ status: 'invalid' });
    expect(identify(['a', 'b'])).toEqual({ status: 'invalid' });
    expect(identify('k'.repeat(257))).toEqual({ status: 'invalid' });
    expect(find).not.toHaveBeenCalled();
  });

  test('a key of exactly 256 characters is looked up', async () => {
    const identify = createIdentifier(config, { find });
    const key = 'k'.repeat(256);
    expect(await identify(key)).toEqual({ status: 'invalid' });
    expect(find).toHaveBeenCalledWith(hashKey(key));
  });

  test('the free, anonymous and configured keys answer at once, with their plans, and never reach the store', () => {
    const configured = record('configured-key-0001', 'enterprise', 'configured');
    const identify = createIdentifier(config, { find }, [configured]);
    expect(identify(config.freeKey)).toEqual({ status: 'ok', plan: 'free', keyId: 'free' });
    expect(identify(config.anonymousKey)).toEqual({ status: 'ok', plan: 'anonymous', keyId: 'anonymous' });
    expect(identify('configured-key-0001')).toEqual({ status: 'ok', plan: 'enterprise', keyId: configured.id });
    expect(find).not.toHaveBeenCalled();
  });

  test('a personal key is looked up once by its hash, then answered from the cache at once', async () => {
    const { key, rec } = stored('premium');
    const identify = createIdentifier(config, { find });
    const first = identify(key);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    for (let i = 0; i < 5; i++) expect(identify(key)).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    expect(find).toHaveBeenCalledTimes(1);
    expect(find).toHaveBeenCalledWith(rec.hash);
  });

  test('an unknown key is invalid, and that answer is remembered too', async () => {
    const identify = createIdentifier(config, { find });
    const key = newKey();
    expect(await identify(key)).toEqual({ status: 'invalid' });
    expect(identify(key)).toEqual({ status: 'invalid' });
    expect(find).toHaveBeenCalledTimes(1);
  });

  test('a key of our shape with a broken checksum is invalid without a look-up', () => {
    const key = newKey();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(createIdentifier(config, { find })(typo)).toEqual({ status: 'invalid' });
    expect(find).not.toHaveBeenCalled();
  });

  test('a look-up is remembered for 30 s: asked again once they are over, not a millisecond before', async () => {
    const { key } = stored('premium');
    const identify = createIdentifier(config, { find });
    await identify(key);
    now += 29_999;
    expect(identify(key)).not.toBeInstanceOf(Promise);
    now += 1;
    expect(await identify(key)).toMatchObject({ status: 'ok', plan: 'premium' });
    expect(find).toHaveBeenCalledTimes(2);
  });

  test('a key in its grace period is remembered until its end only, when that comes before 30 s', async () => {
    const { key } = stored('premium', { expiresAt: new Date(now + 5_000).toISOString() });
    const identify = createIdentifier(config, { find });
    await identify(key);
    now += 4_999;
    expect(identify(key)).not.toBeInstanceOf(Promise);
    now += 1;
    records.clear(); // the grace period is over: the store no longer has it
    expect(await identify(key)).toEqual({ status: 'invalid' });
    expect(find).toHaveBeenCalledTimes(2);
  });

  test('a grace period that ends after 30 s does not stretch the 30 s', async () => {
    const { key } = stored('premium', { expiresAt: new Date(now + 120_000).toISOString() });
    const identify = createIdentifier(config, { find });
    await identify(key);
    now += 30_000;
    expect(identify(key)).toBeInstanceOf(Promise);
  });

  test('forget() drops what was seen: the next call asks the store again', async () => {
    const { key } = stored('premium');
    const identify = createIdentifier(config, { find });
    await identify(key);
    identify.forget();
    expect(identify(key)).toBeInstanceOf(Promise);
    expect(find).toHaveBeenCalledTimes(2);
  });

  test('a store that fails: an unseen key is unavailable (and not remembered), a seen one keeps its last answer', async () => {
    const { key } = stored('premium');
    const identify = createIdentifier(config, { find });
    await identify(key);
    failing = true;
    const unseen = newKey();
    expect(await identify(unseen)).toEqual({ status: 'unavailable' });
    expect(await identify(unseen)).toEqual({ status: 'unavailable' });
    now += 30_000; // the seen key's answer is out of date, and the store cannot renew it
    expect(await identify(key)).toMatchObject({ status: 'ok', plan: 'premium' });
    failing = false;
    records.clear();
    // The store answers again: the unseen key is judged, the failed renewal was not remembered.
    expect(await identify(unseen)).toEqual({ status: 'invalid' });
    expect(await identify(key)).toEqual({ status: 'invalid' });
  });

  test('the cache holds up to 10,001 look-ups, then starts again empty', async () => {
    const identify = createIdentifier(config, { find });
    const keys = Array.from({ length: 10_002 }, (_, i) => `personal-key-${i}`);
    for (const key of keys.slice(0, 10_001)) await identify(key);
    expect(identify(keys[0])).not.toBeInstanceOf(Promise); // 10,001 remembered, the first among them
    await identify(keys[10_001]); // one more empties the cache before it is remembered
    expect(identify(keys[0])).toBeInstanceOf(Promise);
    expect(identify(keys[10_001])).not.toBeInstanceOf(Promise);
  });

  test('keys one after another, each told apart from the last even by its last character', async () => {
    const a = record('configured-key-000a', 'enterprise', 'a');
    const b = record('configured-key-000b', 'basic', 'b');
    const identify = createIdentifier(config, { find }, [a, b]);
    const { key: personal, rec } = stored('premium');
    const sequence = ['configured-key-000a', 'configured-key-000a', 'configured-key-000b', config.freeKey, 'configured-key-000a'];
    const plans = { 'configured-key-000a': 'enterprise', 'configured-key-000b': 'basic', [config.freeKey]: 'free' };
    for (const key of sequence) expect(identify(key)).toMatchObject({ status: 'ok', plan: plans[key] });
    expect(identify('configured-key-000b')).toMatchObject({ keyId: b.id });
    expect(await identify('configured-key-000c')).toEqual({ status: 'invalid' }); // same length, one character off
    expect(await identify(personal)).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    expect(identify(personal)).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    expect(find).toHaveBeenCalledTimes(2); // the …000c and the personal key, each once
    expect(find.mock.calls.map(([hash]) => hash)).toEqual([hashKey('configured-key-000c'), rec.hash]);
  });

  test('over one connection a key is hashed once while it stays the same; every other key is judged as its own', async () => {
    const a = record('configured-key-000a', 'enterprise', 'a');
    const identify = createIdentifier(config, { find }, [a]);
    const { key: personal, rec } = stored('premium');
    const connection = {};
    const other = {};
    const hashes = jest.spyOn(crypto, 'hash');
    expect(identify('configured-key-000a', connection)).toMatchObject({ plan: 'enterprise' });
    expect(identify('configured-key-000a', connection)).toMatchObject({ plan: 'enterprise' });
    expect(identify('configured-key-000a', connection)).toMatchObject({ plan: 'enterprise' });
    expect(hashes).toHaveBeenCalledTimes(1);
    // Same length, one character off, on the same connection: hashed and judged on its own.
    expect(await identify('configured-key-000c', connection)).toEqual({ status: 'invalid' });
    expect(await identify(personal, connection)).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    expect(identify(personal, connection)).toEqual({ status: 'ok', plan: 'premium', keyId: rec.id });
    expect(identify(config.freeKey, connection)).toMatchObject({ plan: 'free' });
    expect(identify('configured-key-000a', other)).toMatchObject({ plan: 'enterprise' });
    expect(identify('configured-key-000a', connection)).toMatchObject({ plan: 'enterprise' });
    expect(hashes).toHaveBeenCalledTimes(6); // a, …000c, the personal key, free, a on the other connection, a again
    expect(find.mock.calls.map(([hash]) => hash)).toEqual([hashKey('configured-key-000c'), rec.hash]);
  });
});

describe('presentedKey', () => {
  test('the header comes first, then the query string, then the body', () => {
    expect(presentedKey({ 'x-api-key': 'H' }, { apikey: 'Q' }, { apikey: 'B' })).toBe('H');
    expect(presentedKey({}, { apikey: 'Q' }, { apikey: 'B' })).toBe('Q');
    expect(presentedKey({}, {}, { apikey: 'B' })).toBe('B');
    expect(presentedKey({}, {}, undefined)).toBeUndefined();
  });

  test('an empty header or query value does not count: the next place is read', () => {
    expect(presentedKey({ 'x-api-key': '' }, { apikey: 'Q' }, undefined)).toBe('Q');
    expect(presentedKey({ 'x-api-key': '' }, { apikey: '' }, { apikey: 'B' })).toBe('B');
  });

  test('a key repeated identically in one place is that key; two different keys are SEVERAL', () => {
    expect(presentedKey({ 'x-api-key': 'K, K' }, {}, undefined)).toBe('K');
    expect(presentedKey({ 'x-api-key': 'K,J' }, {}, undefined)).toBe(SEVERAL);
    expect(presentedKey({ 'x-api-key': ['K', 'K'] }, {}, undefined)).toBe('K');
    expect(presentedKey({}, { apikey: ['K', 'K'] }, undefined)).toBe('K');
    expect(presentedKey({}, { apikey: ['K', 'J'] }, undefined)).toBe(SEVERAL);
    expect(presentedKey({}, {}, { apikey: ['K', 'J'] })).toBe(SEVERAL);
    expect(presentedKey({}, {}, { apikey: [] })).toBeUndefined();
  });

  test('a header without a comma is taken whole, spaces and all', () => {
    expect(presentedKey({ 'x-api-key': ' K ' }, {}, undefined)).toBe(' K ');
  });
});
