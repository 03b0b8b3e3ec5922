// Personal API keys: issued, named, rotated with a grace period, revoked, and looked up by hash. Only the
// SHA-256 of a key is stored (random 178-bit keys need no slow hash), with a hint (type prefix, first
// characters, last four) to recognise it by. A key looks like GitHub's tokens: a type prefix, 30 random
// base62 characters and a 6-character CRC32 checksum, so secret scanners can find leaked ones and a
// mistyped key is refused without a look-up. Every change is announced on the store, so each running
// process forgets what it had cached within a second.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { Store } from '../store/types.js';
import { AccountEvents } from './account-events.js';

export interface KeyRecord {
  /** Short public id of the key (first 12 hex chars of its hash): safe to log and to revoke by. */
  id: string;
  hash: string;
  plan: string;
  name: string;
  createdAt: string;
  /** How the key is shown once issued: its prefix and first characters, and its last four. */
  hint?: string;
  /** The portal account that holds it; keys made by the CLI or API_KEYS_FILE have none. */
  accountId?: string;
  /** The key stops working then: the end of a rotated key's grace period, or an expiry its holder set. */
  expiresAt?: string;
  /** The key's own allowance per window of its plan, below the account's (set by its holder). */
  cap?: number;
  /** A suspended account's keys are kept but refused. */
  disabled?: boolean;
  /** The key that replaced this one in a rotation (it works until `expiresAt`, the grace period's end). */
  replacedBy?: string;
  /** Revoked keys are kept, refused, so their usage history is still theirs (listed only when asked). */
  revokedAt?: string;
}

export interface LastUse {
  at: string;
  ip: string;
}

export const KEY_PREFIX = 'uua_';
const BODY = 30;
const SUM = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY + SUM}}$`);
const KEYS = 'keys';
const LAST_USED = 'key-last-used';

export const hashKey = (key: string): string => crypto.hash('sha256', key);

/** Compares two hex hashes in constant time (every character, whatever differs), without allocating. */
function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const checksum = (body: string) => base62(zlib.crc32(body), SUM);

export function newKey(): string {
  // Rejection sampling keeps every base62 character equally likely.
  let body = '';
  while (body.length < BODY) {
    for (const b of crypto.randomBytes(BODY)) if (b < 248 && body.length < BODY) body += BASE62[b % 62];
  }
  return KEY_PREFIX + body + checksum(body);
}

/** False for a key of our shape whose checksum does not match (a typo or a made-up key). */
export function plausibleKey(key: string): boolean {
  if (!SHAPE.test(key)) return true; // older keys and configured keys have other shapes
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY);
  return key.slice(-SUM) === checksum(body);
}

const keyHint = (key: string) => `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;

export function record(key: string, plan: string, name: string, accountId?: string): KeyRecord {
  const hash = hashKey(key);
  return {
    id: hash.slice(0, 12),
    hash,
    plan,
    name,
    createdAt: new Date().toISOString(),
    hint: keyHint(key),
    ...(accountId ? { accountId } : {}),
  };
}

/** Usable now: not revoked, not disabled, not past its grace period or expiry. */
export function isLive(rec: KeyRecord, now = Date.now()): boolean {
  return rec.revokedAt === undefined && !rec.disabled && (rec.expiresAt === undefined || Date.parse(rec.expiresAt) > now);
}

export class KeyStore {
  /** `events`: heard by email and webhooks; keys of an account announce their creation and end there. */
  constructor(
    readonly store: Store,
    readonly events = new AccountEvents(),
  ) {}

  /** The live key with this hash (for the API's identify step). */
  async find(hash: string): Promise<KeyRecord | undefined> {
    const rec = await this.store.get<KeyRecord>(KEYS, hash);
    return rec && sameHash(rec.hash, hash) && isLive(rec) ? rec : undefined;
  }

  async issue(plan: string, name: string, accountId?: string): Promise<{ key: string; record: KeyRecord }> {
    const key = newKey();
    const rec = record(key, plan, name, accountId);
    await this.save(rec);
    if (accountId) this.events.emit('key.created', accountId, { keyId: rec.id, name, hint: rec.hint, plan });
    return { key, record: rec };
  }

  async save(rec: KeyRecord): Promise<void> {
    await this.store.put(KEYS, rec.hash, rec);
    await this.store.announce(KEYS);
  }

  /** Keys not revoked (`revoked: true`: revoked ones too), of one account or all. */
  async list(filter: { accountId?: string; revoked?: boolean } = {}): Promise<KeyRecord[]> {
    return (await this.store.list<KeyRecord>(KEYS)).filter(
      (k) => (filter.accountId === undefined || k.accountId === filter.accountId) && (filter.revoked === true || k.revokedAt === undefined),
    );
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    return (await this.list()).find((k) => k.id === id);
  }

  async rename(id: string, name: string): Promise<KeyRecord | undefined> {
    const rec = await this.get(id);
    if (!rec) return undefined;
    rec.name = name;
    await this.save(rec);
    return rec;
  }

  /**
   * Sets or clears (undefined) a key's own cap and its expiry, as its holder chose on the key page. The
   * expiry of a rotated key's grace period is not the holder's to move.
   */
  async setLimits(id: string, limits: { cap?: number; expiresAt?: string }): Promise<KeyRecord | undefined> {
    const rec = await this.get(id);
    if (!rec || !isLive(rec) || rec.replacedBy !== undefined) return undefined;
    const { cap: _cap, expiresAt: _expiresAt, ...rest } = rec;
    const next: KeyRecord = {
      ...rest,
      ...(limits.cap !== undefined && { cap: limits.cap }),
      ...(limits.expiresAt !== undefined && { expiresAt: limits.expiresAt }),
    };
    await this.save(next);
    return next;
  }

  /** A new key with the same name, plan, holder and cap; the old one works `graceMs` longer (0: revoked now). */
  async rotate(id: string, graceMs: number): Promise<{ key: string; record: KeyRecord } | undefined> {
    const old = await this.get(id);
    if (!old || !isLive(old)) return undefined;
    const fresh = await this.issue(old.plan, old.name, old.accountId);
    if (old.cap !== undefined) {
      fresh.record.cap = old.cap;
      await this.save(fresh.record);
    }
    if (graceMs <= 0) await this.revoke(id, 'rotated');
    else await this.save({ ...old, expiresAt: new Date(Date.now() + graceMs).toISOString(), replacedBy: fresh.record.id });
    return fresh;
  }

  async revoke(id: string, reason: 'revoked' | 'rotated' | 'account-deleted' = 'revoked'): Promise<boolean> {
    const rec = await this.get(id);
    if (!rec) return false;
    await this.save({ ...rec, revokedAt: new Date().toISOString() });
    if (rec.accountId) this.events.emit('key.revoked', rec.accountId, { keyId: rec.id, name: rec.name, hint: rec.hint, reason });
    return true;
  }

  /** Moves every key of an account to a plan, or disables/enables them (suspension). */
  async updateAccount(accountId: string, change: { plan?: string; disabled?: boolean }): Promise<number> {
    const keys = await this.list({ accountId });
    if (!keys.length) return 0;
    await this.store.write(keys.map((k) => ({ kind: 'put' as const, coll: KEYS, id: k.hash, doc: { ...k, ...change } })));
    await this.store.announce(KEYS);
    return keys.length;
  }

  async lastUsed(ids: string[]): Promise<Map<string, LastUse>> {
    const uses = await Promise.all(ids.map((id) => this.store.get<LastUse>(LAST_USED, id)));
    return new Map(ids.flatMap((id, i): [string, LastUse][] => (uses[i] ? [[id, uses[i]]] : [])));
  }

  /**
   * Erases a revoked key's record and when and from where it was last used (its holder's personal data),
   * for a deleted account; its usage history, which names no one, is the caller's to keep or not.
   */
  async erase(id: string): Promise<void> {
    const rec = (await this.list({ revoked: true })).find((k) => k.id === id);
    if (rec && rec.revokedAt !== undefined) await this.store.del(KEYS, rec.hash);
    await this.store.del(LAST_USED, id);
  }

  /** Write ops recording when and from where keys were last used (batched by the usage recorder). */
  static lastUsedOps(uses: Map<string, LastUse>) {
    return [...uses].map(([id, use]) => ({ kind: 'put' as const, coll: LAST_USED, id, doc: use }));
  }
}
