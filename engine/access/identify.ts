// Who is calling: the published anonymous key, the shared free key, a key of API_KEYS_FILE, or a personal
// key from the key store. The keys known in process, and store look-ups seen in the last 30 s, are
// answered at once; only an unseen personal key waits for the store. What was seen is forgotten as soon
// as the store announces a change to keys (from this process, another instance or the CLI).
import type { Config } from '../config.js';
import { hashKey, plausibleKey, sameText, type KeyRecord } from './keystore.js';

export type Identity =
  /** `accountId`: the portal account whose allowance the key spends; `cap`: the key's own limit below it. */
  | { status: 'ok'; plan: string; keyId: string; accountId?: string; cap?: number }
  | { status: 'missing' }
  | { status: 'invalid' }
  /** The key store did not answer and the key was not seen recently: it cannot be judged now. */
  | { status: 'unavailable' }
  /** Two different keys in one place (the header, the query string or the body). */
  | { status: 'ambiguous' };

const LOOKUP_TTL_MS = 30_000;
const MISSING: Identity = Object.freeze({ status: 'missing' });
const INVALID: Identity = Object.freeze({ status: 'invalid' });
const UNAVAILABLE: Identity = Object.freeze({ status: 'unavailable' });
const AMBIGUOUS: Identity = Object.freeze({ status: 'ambiguous' });

/** `configured`: keys of API_KEYS_FILE, held in memory so they work whatever the state of the store. */
export interface KeyFinder {
  find(hash: string): Promise<KeyRecord | undefined>;
}

/** `connection`: what the key came over (the request's socket), whose last key's hash is kept. */
export type Identifier = ((presented: unknown, connection?: object) => Identity | Promise<Identity>) & { forget(): void };

export function createIdentifier(config: Config, store: KeyFinder, configured: KeyRecord[] = []): Identifier {
  const known = new Map<string, Identity>();
  for (const r of configured) known.set(r.hash, Object.freeze({ status: 'ok', plan: r.plan, keyId: r.id }));
  known.set(hashKey(config.freeKey), Object.freeze({ status: 'ok', plan: 'free', keyId: 'free' }));
  known.set(hashKey(config.anonymousKey), Object.freeze({ status: 'ok', plan: 'anonymous', keyId: 'anonymous' }));
  const recent = new Map<string, { identity: Identity; until: number }>();
  // A kept-alive client sends the same key on each request of its connection: the key's SHA-256 is made
  // once per connection (docs/decisions/request-path-tuning.md). Behind a proxy one connection carries many
  // callers' keys: the presented key is compared with the kept one in a time that says nothing of either.
  const lastOn = new WeakMap<object, { key: string; hash: string }>();
  const hashOn = (connection: object | undefined, key: string): string => {
    if (!connection) return hashKey(key);
    const last = lastOn.get(connection);
    if (last !== undefined && sameText(last.key, key)) return last.hash;
    const hash = hashKey(key);
    lastOn.set(connection, { key, hash });
    return hash;
  };

  const lookUp = async (hash: string, seen: Identity | undefined): Promise<Identity> => {
    let identity = INVALID;
    let until = Date.now() + LOOKUP_TTL_MS;
    try {
      const rec = await store.find(hash);
      if (rec) {
        identity = Object.freeze({
          status: 'ok',
          plan: rec.plan,
          keyId: rec.id,
          ...(rec.accountId !== undefined && { accountId: rec.accountId }),
          ...(rec.cap !== undefined && { cap: rec.cap }),
        });
        // A key in its grace period is not remembered past its end.
        if (rec.expiresAt) until = Math.min(until, Date.parse(rec.expiresAt));
      }
    } catch {
      // Key store unreachable: a key seen before keeps working from its last answer; any other key can be
      // neither accepted nor called invalid.
      return seen ?? UNAVAILABLE;
    }
    if (recent.size > 10_000) recent.clear();
    recent.set(hash, { identity, until });
    return identity;
  };

  const identify = (presented: unknown, connection?: object): Identity | Promise<Identity> => {
    if (presented === undefined || presented === '') return MISSING;
    if (presented === SEVERAL) return AMBIGUOUS;
    if (typeof presented !== 'string' || presented.length > 256) return INVALID;
    // Looked up by the key's SHA-256: whatever a look-up's timing could tell is about a hash, from which no
    // key can be worked back (the stores keep hashes for the same reason).
    const hash = hashOn(connection, presented);
    const identity = known.get(hash);
    if (identity !== undefined) return identity;
    const hit = recent.get(hash);
    if (hit !== undefined && hit.until > Date.now()) return hit.identity;
    if (!plausibleKey(presented)) return INVALID;
    return lookUp(hash, hit?.identity);
  };
  return Object.assign(identify, { forget: () => recent.clear() });
}

/** Stands for "two different keys in one place" (a 400), as presentedKey's answer. */
export const SEVERAL = Symbol('several keys');

/**
 * The key as the caller sent it, in Kong key-auth's order: the X-API-Key header, then the `apikey` query
 * parameter, then `apikey` in the body; the first place that holds one counts. A key repeated identically
 * in one place is that key (`apikey=K&apikey=K`, or a header sent twice, which Node joins with ", ").
 */
export function presentedKey(
  headers: Record<string, string | string[] | undefined>,
  query: Record<string, unknown>,
  body: Record<string, unknown> | undefined,
): unknown {
  return keyOutsideBody(headers, query) ?? one(body?.apikey);
}

/** The key of the X-API-Key header or the query string, as presentedKey reads it; undefined when neither holds one. */
export function keyOutsideBody(headers: Record<string, string | string[] | undefined>, query: Record<string, unknown>): unknown {
  const header = headers['x-api-key'];
  if (header !== undefined && header !== '')
    return one(typeof header === 'string' && header.includes(',') ? header.split(',').map((k) => k.trim()) : header);
  if (query.apikey !== undefined && query.apikey !== '') return one(query.apikey);
  return undefined;
}

function one(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const distinct = new Set(value);
  if (distinct.size === 1) return value[0];
  return distinct.size === 0 ? undefined : SEVERAL;
}
