// The keys an account may see and use, and the rules for personal keys: a Free account calls on the shared
// free key (counted per client IP), a Premium or Enterprise account holds personal keys of its own, named,
// at most MAX_KEYS live at once, rotated with a grace period for the old one.
import type { KeyRecord } from '../../engine/access/keystore.js';
import type { KeyRef, PortalDeps, Viewer } from '../types.js';

export const FREE_KEY_ID = 'free';
export const KEY_NAME_MAX = 60;
export const MAX_KEYS = 20;

/** How long a rotated key keeps working, as the rotate form offers it. */
export const GRACE: Record<string, { ms: number; label: string }> = {
  none: { ms: 0, label: 'No: refuse it at once' },
  '1h': { ms: 3_600_000, label: '1 hour' },
  '24h': { ms: 86_400_000, label: '24 hours' },
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a key name is refused, or undefined when it is fine. */
export function keyNameProblem(name: string): string | undefined {
  if (!name) return 'Give the key a name, such as the app or server that will use it.';
  if (name.length > KEY_NAME_MAX || CONTROL.test(name)) return `Use at most ${KEY_NAME_MAX} characters for the name, without line breaks.`;
  return undefined;
}

/** Whether the viewer's plan gives personal keys (Premium, Enterprise) and they may be used now. */
export function holdsPersonalKeys(deps: PortalDeps, viewer: Viewer): boolean {
  return viewer.status === 'active' && viewer.plan !== FREE_KEY_ID && deps.plans[viewer.plan]?.keyedBy === 'key';
}

export const freeRef = (): KeyRef => ({ id: FREE_KEY_ID, plan: 'free', label: 'Shared free key (calls from your IP address)' });
export const personalRef = (k: KeyRecord): KeyRef => ({ id: k.id, plan: k.plan, label: `${k.name} (${k.hint ?? k.id})`, record: k });

/** The keys a viewer may look at: the free key for free accounts, and the account's own keys. */
export async function viewerKeys(deps: PortalDeps, viewer: Viewer): Promise<KeyRef[]> {
  const own = (await deps.keys.list({ accountId: viewer.id })).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return [...(holdsPersonalKeys(deps, viewer) ? [] : [freeRef()]), ...own.map(personalRef)];
}

/**
 * The key /docs' try-it may fill in for a signed-in viewer: the shared free key of a free account. A
 * personal key is known only as a hash: the key page hands it over through the tab's sessionStorage.
 */
export function tryItKey(deps: PortalDeps, viewer: Viewer | undefined): string | undefined {
  return viewer && !holdsPersonalKeys(deps, viewer) ? deps.config.freeKey : undefined;
}

/** Whose allowance a key spends: the key, and its account's (the free key: the client address's). */
export const subjectOf = (ref: KeyRef) => ({ keyId: ref.id, accountId: ref.record?.accountId });

/** A key's allowance now, for calls from `ip`: its account's for an account's key, the address's for the free key. */
export async function allowanceOf(deps: PortalDeps, ref: KeyRef, ip: string | undefined) {
  return deps.usage.allowance(ref.plan, subjectOf(ref), ip);
}
