// Who is calling: the published anonymous key, the shared free key, or a personal key from the key store.
// Looks are cached briefly in process so a request costs no extra Redis round trip.
import type { Request } from 'express';
import type { Config } from './config.js';
import { hashKey, sameHash, type KeyRecord, type KeyStore } from './keystore.js';

export type Identity =
  | { status: 'ok'; plan: string; keyId: string }
  | { status: 'missing' }
  | { status: 'invalid' }
  /** The key store did not answer and the key was not seen recently: it cannot be judged now. */
  | { status: 'unavailable' };

const LOOKUP_TTL_MS = 30_000;

/** `configured`: keys of API_KEYS_FILE, held in memory so they work whatever the state of the store. */
export function createIdentifier(config: Config, store: KeyStore, configured: KeyRecord[] = []) {
  const fixed = new Map(configured.map((r) => [r.hash, r]));
  const anonymous = hashKey(config.anonymousKey);
  const free = hashKey(config.freeKey);
  const recent = new Map<string, { identity: Identity; until: number }>();

  return async function identify(presented: unknown): Promise<Identity> {
    if (presented === undefined || presented === '') return { status: 'missing' };
    if (typeof presented !== 'string' || presented.length > 256) return { status: 'invalid' };
    const hash = hashKey(presented);
    if (sameHash(hash, anonymous)) return { status: 'ok', plan: 'anonymous', keyId: 'anonymous' };
    if (sameHash(hash, free)) return { status: 'ok', plan: 'free', keyId: 'free' };
    const own = fixed.get(hash);
    if (own && sameHash(own.hash, hash)) return { status: 'ok', plan: own.plan, keyId: own.id };
    const hit = recent.get(hash);
    if (hit && hit.until > Date.now()) return hit.identity;
    let identity: Identity = { status: 'invalid' };
    try {
      const rec = await store.find(hash);
      if (rec) identity = { status: 'ok', plan: rec.plan, keyId: rec.id };
    } catch {
      // Key store unreachable: a key seen before keeps working from its last answer; any other key can be
      // neither accepted nor called invalid.
      return hit ? hit.identity : { status: 'unavailable' };
    }
    if (recent.size > 10_000) recent.clear();
    recent.set(hash, { identity, until: Date.now() + LOOKUP_TTL_MS });
    return identity;
  };
}

/** The key as the caller sent it: `apikey` in the body or query string, or the X-API-Key header. */
export function presentedKey(req: Request, query: Record<string, unknown>, body: Record<string, unknown> | undefined): unknown {
  return body?.apikey ?? query.apikey ?? req.get('x-api-key');
}
