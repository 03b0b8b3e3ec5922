// Personal API keys: issued, named, rotated with a grace period, revoked, and looked up by hash. Only the
// SHA-256 of a key is stored (random 178-bit keys need no slow hash), with a hint (type prefix, first
// characters, last four) to recognise it by. A key looks like GitHub's tokens: a type prefix, 30 random
// base62 characters and a 6-character CRC32 checksum, so secret scanners can find leaked ones and a
// mistyped key is refused without a look-up. The records are rows of `api_keys` (found by hash, by id, by
// account); every change is announced on the store, so each running process forgets what it had cached
// within a second.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { Selectable } from 'kysely';
import type { Store } from '../store/types.js';
import type { Db } from '../db/open.js';
import type { ApiKeysTable } from '../db/tables/keys.js';
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
/** Rows per statement of a batched write (PostgreSQL takes at most 65535 parameters in one). */
const BATCH = 500;

export const hashKey = (key: string): string => crypto.hash('sha256', key);

/**
 * Whether two texts are the same, in a time that depends on their length only (every character is compared,
 * whatever differs), without allocating: crypto.timingSafeEqual would need both as bytes first.
 */
export function sameText(a: string, b: string): boolean {
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

type KeyRow = Selectable<ApiKeysTable>;

function fromRow(r: KeyRow): KeyRecord {
  return {
    id: r.id,
    hash: r.hash,
    plan: r.plan,
    name: r.name,
    createdAt: r.createdAt,
    ...(r.hint !== null && { hint: r.hint }),
    ...(r.accountId !== null && { accountId: r.accountId }),
    ...(r.expiresAt !== null && { expiresAt: r.expiresAt }),
    ...(r.cap !== null && { cap: r.cap }),
    ...(r.disabled ? { disabled: true } : {}),
    ...(r.replacedBy !== null && { replacedBy: r.replacedBy }),
    ...(r.revokedAt !== null && { revokedAt: r.revokedAt }),
  };
}

function toRow(k: KeyRecord): KeyRow {
  return {
    hash: k.hash,
    id: k.id,
    accountId: k.accountId ?? null,
    plan: k.plan,
    name: k.name,
    createdAt: k.createdAt,
    hint: k.hint ?? null,
    expiresAt: k.expiresAt ?? null,
    cap: k.cap ?? null,
    disabled: k.disabled ? 1 : 0,
    replacedBy: k.replacedBy ?? null,
    revokedAt: k.revokedAt ?? null,
  };
}

export class KeyStore {
  /**
   * `store`: where changes are announced (the identify caches of every instance forget on it). `events`:
   * heard by email and webhooks; keys of an account announce their creation and end there.
   */
  constructor(
    readonly db: Db,
    readonly store: Pick<Store, 'announce'>,
    readonly events = new AccountEvents(),
  ) {}

  /** The live key with this hash (for the API's identify step): the primary key. */
  async find(hash: string): Promise<KeyRecord | undefined> {
    const row = await this.db.selectFrom('apiKeys').selectAll().where('hash', '=', hash).executeTakeFirst();
    const rec = row && fromRow(row);
    return rec && sameText(rec.hash, hash) && isLive(rec) ? rec : undefined;
  }

  async issue(plan: string, name: string, accountId?: string): Promise<{ key: string; record: KeyRecord }> {
    const key = newKey();
    const rec = record(key, plan, name, accountId);
    await this.save(rec);
    if (accountId) this.events.emit('key.created', accountId, { keyId: rec.id, name, hint: rec.hint, plan });
    return { key, record: rec };
  }

  /** Writes the record whole (a new key, or every field of one). */
  async save(rec: KeyRecord): Promise<void> {
    const { hash: _hash, ...rest } = toRow(rec);
    await this.db
      .insertInto('apiKeys')
      .values(toRow(rec))
      .onConflict((oc) => oc.column('hash').doUpdateSet(rest))
      .execute();
    await this.store.announce(KEYS);
  }

  /** Several records in a few statements (imports): existing ones are left as they are. */
  async import(recs: KeyRecord[]): Promise<void> {
    for (let i = 0; i < recs.length; i += BATCH) {
      await this.db
        .insertInto('apiKeys')
        .values(recs.slice(i, i + BATCH).map(toRow))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    if (recs.length) await this.store.announce(KEYS);
  }

  /** An account's keys not revoked (`revoked: true`: revoked ones too), newest first: by (account_id, created_at). */
  async ofAccount(accountId: string, o: { revoked?: boolean } = {}): Promise<KeyRecord[]> {
    return this.ofAccounts([accountId], o);
  }

  /** The keys of several accounts (a page of the admin's list), newest first. */
  async ofAccounts(accountIds: string[], o: { revoked?: boolean } = {}): Promise<KeyRecord[]> {
    if (!accountIds.length) return [];
    let q = this.db.selectFrom('apiKeys').selectAll().where('accountId', 'in', accountIds);
    if (o.revoked !== true) q = q.where('revokedAt', 'is', null);
    return (await q.orderBy('createdAt', 'desc').orderBy('id', 'desc').execute()).map(fromRow);
  }

  /**
   * Keys not revoked (`revoked: true`: revoked ones too), of one account or, for the operator's CLI, all of
   * them (read in pages of the primary key).
   */
  async list(filter: { accountId?: string; revoked?: boolean } = {}): Promise<KeyRecord[]> {
    if (filter.accountId !== undefined) return this.ofAccount(filter.accountId, filter);
    const out: KeyRecord[] = [];
    for (let after = ''; ;) {
      let q = this.db.selectFrom('apiKeys').selectAll().where('hash', '>', after);
      if (filter.revoked !== true) q = q.where('revokedAt', 'is', null);
      const rows = await q.orderBy('hash').limit(BATCH).execute();
      out.push(...rows.map(fromRow));
      if (rows.length < BATCH) return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      after = rows[rows.length - 1].hash;
    }
  }

  /** A key by its public id, revoked ones too: the unique index on id. */
  private async byId(id: string): Promise<KeyRecord | undefined> {
    const row = await this.db.selectFrom('apiKeys').selectAll().where('id', '=', id).executeTakeFirst();
    return row && fromRow(row);
  }

  /** A key not revoked, by its public id. */
  async get(id: string): Promise<KeyRecord | undefined> {
    const rec = await this.byId(id);
    return rec && rec.revokedAt === undefined ? rec : undefined;
  }

  async rename(id: string, name: string): Promise<KeyRecord | undefined> {
    const rec = await this.get(id);
    if (!rec) return undefined;
    await this.db.updateTable('apiKeys').set({ name }).where('hash', '=', rec.hash).execute();
    await this.store.announce(KEYS);
    return { ...rec, name };
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
    await this.db
      .updateTable('apiKeys')
      .set({ cap: limits.cap ?? null, expiresAt: limits.expiresAt ?? null })
      .where('hash', '=', rec.hash)
      .execute();
    await this.store.announce(KEYS);
    return next;
  }

  /**
   * A new key with the same name, plan, holder and cap; the old one works `graceMs` longer (0: revoked now).
   * One transaction: the old key is claimed (row locked on PostgreSQL) only while live and not already
   * replaced, so two rotations at once make one new key, and a crash leaves either both rows or neither.
   */
  async rotate(id: string, graceMs: number): Promise<{ key: string; record: KeyRecord } | undefined> {
    const key = newKey();
    const rotated = await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('apiKeys').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      const old = row && fromRow(row);
      if (!old || old.revokedAt !== undefined || old.replacedBy !== undefined || !isLive(old)) return undefined;
      const fresh = { ...record(key, old.plan, old.name, old.accountId), ...(old.cap !== undefined && { cap: old.cap }) };
      await trx.insertInto('apiKeys').values(toRow(fresh)).execute();
      const now = Date.now();
      const end = graceMs <= 0 ? { revokedAt: new Date(now).toISOString() } : { expiresAt: new Date(now + graceMs).toISOString() };
      await trx
        .updateTable('apiKeys')
        .set({ ...end, replacedBy: fresh.id })
        .where('hash', '=', old.hash)
        .execute();
      return { old, fresh };
    });
    if (!rotated) return undefined;
    const { old, fresh } = rotated;
    await this.store.announce(KEYS);
    if (old.accountId) {
      this.events.emit('key.created', old.accountId, { keyId: fresh.id, name: fresh.name, hint: fresh.hint, plan: fresh.plan });
      if (graceMs <= 0)
        this.events.emit('key.revoked', old.accountId, { keyId: old.id, name: old.name, hint: old.hint, reason: 'rotated' });
    }
    return { key, record: fresh };
  }

  async revoke(id: string, reason: 'revoked' | 'rotated' | 'account-deleted' = 'revoked'): Promise<boolean> {
    const rec = await this.get(id);
    if (!rec) return false;
    // Only a key not revoked meanwhile: two revocations at once tell of it once.
    const done = await this.db
      .updateTable('apiKeys')
      .set({ revokedAt: new Date().toISOString() })
      .where('hash', '=', rec.hash)
      .where('revokedAt', 'is', null)
      .executeTakeFirst();
    await this.store.announce(KEYS);
    if (!Number(done.numUpdatedRows)) return false;
    if (rec.accountId) this.events.emit('key.revoked', rec.accountId, { keyId: rec.id, name: rec.name, hint: rec.hint, reason });
    return true;
  }

  /**
   * Moves every key of an account to a plan, or disables/enables them (suspension): one UPDATE by account_id.
   * Returns how many keys it wrote. Within a transaction (`trx`) nothing is announced: what it wrote is not
   * there for others before the commit, so the caller announces (announce) once it has committed.
   */
  async updateAccount(accountId: string, change: { plan?: string; disabled?: boolean }, trx?: Db): Promise<number> {
    const set = {
      ...(change.plan !== undefined && { plan: change.plan }),
      ...(change.disabled !== undefined && { disabled: change.disabled ? 1 : 0 }),
    };
    if (!Object.keys(set).length) return 0;
    const done = await (trx ?? this.db).updateTable('apiKeys').set(set).where('accountId', '=', accountId).executeTakeFirst();
    const n = Number(done.numUpdatedRows);
    if (n && !trx) await this.announce();
    return n;
  }

  /** Tells every instance that keys changed: each forgets what it had cached. */
  async announce(): Promise<void> {
    await this.store.announce(KEYS);
  }

  /** When and from where these keys were last used: the primary key of key_last_used. */
  async lastUsed(ids: string[]): Promise<Map<string, LastUse>> {
    if (!ids.length) return new Map();
    const rows = await this.db.selectFrom('keyLastUsed').selectAll().where('keyId', 'in', ids).execute();
    return new Map(rows.map((r) => [r.keyId, { at: r.at, ip: r.ip }]));
  }

  /**
   * Records when and from where keys were last used, in one upsert per few hundred keys (the usage
   * recorder's batch, once a second, off the request path).
   */
  async recordLastUsed(uses: Map<string, LastUse>): Promise<void> {
    const rows = [...uses].map(([keyId, use]) => ({ keyId, at: use.at, ip: use.ip }));
    for (let i = 0; i < rows.length; i += BATCH) {
      await this.db
        .insertInto('keyLastUsed')
        .values(rows.slice(i, i + BATCH))
        .onConflict((oc) => oc.column('keyId').doUpdateSet((eb) => ({ at: eb.ref('excluded.at'), ip: eb.ref('excluded.ip') })))
        .execute();
    }
  }

  /**
   * Erases a revoked key's record and when and from where it was last used (its holder's personal data),
   * for a deleted account; its usage history, which names no one, is the caller's to keep or not.
   */
  async erase(id: string): Promise<void> {
    await this.db.deleteFrom('apiKeys').where('id', '=', id).where('revokedAt', 'is not', null).execute();
    await this.db.deleteFrom('keyLastUsed').where('keyId', '=', id).execute();
  }
}
