// The keys an account may see and use, and the rules for personal keys: a Free account calls on the shared
// free key (counted per client IP), or with FREE_PERSONAL_KEYS on one personal key of its own (its own free
// allowance); a Premium or Enterprise account holds personal keys of its own, named, at most MAX_KEYS live
// at once, rotated with a grace period for the old one.
import net from 'node:net';
import type { PlanSpec } from '../../engine/catalog/load.js';
import type { KeyRecord } from '../../engine/access/keystore.js';
import type { KeyRef, PortalDeps, Viewer } from '../shared/types.js';
import { FREE_PERSONAL_PLAN, keyPlanOf } from '../accounts/accounts.js';

export const FREE_KEY_ID = 'free';
export const KEY_NAME_MAX = 60;
const MAX_KEYS = 20;
/** A Free account's personal keys (FREE_PERSONAL_KEYS): one, so the free allowance is not multiplied. */
const MAX_FREE_KEYS = 1;

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

/** The plan the viewer's personal keys carry (a free account's: FREE_PERSONAL_PLAN with FREE_PERSONAL_KEYS). */
export const viewerKeyPlan = (deps: PortalDeps, viewer: Viewer) => keyPlanOf(viewer.plan, deps.config.freePersonalKeys);

/** Whether the viewer's plan gives personal keys (Premium, Enterprise; Free with FREE_PERSONAL_KEYS) and they may be used now. */
export function holdsPersonalKeys(deps: PortalDeps, viewer: Viewer): boolean {
  return viewer.status === 'active' && deps.plans[viewerKeyPlan(deps, viewer)]?.keyedBy === 'key';
}

/** How many live keys the viewer may hold at once. */
export const maxKeysOf = (viewer: Viewer) => (viewer.plan === 'free' ? MAX_FREE_KEYS : MAX_KEYS);

/**
 * The plans with FREE_PERSONAL_PLAN added: the free plan's allowance and window (after PLAN_FREE_*
 * overrides), counted per key instead of per key and client IP. Added whether FREE_PERSONAL_KEYS is on or
 * not, so a key made while it was on is never of an unknown plan after a restart with it off (the boot
 * then disables it: Accounts.applyFreeKeyPolicy). The shared free key keeps the free plan as it is.
 */
/** 1234567 → "1,234,567": what toLocaleString('en-US') writes for an integer, without loading ICU's number
 * formatting at boot, the boot's biggest single step after module loading (docs/decisions/embedded-memory.md). */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export function withFreePersonalPlan(plans: Record<string, PlanSpec>): Record<string, PlanSpec> {
  const free = plans.free;
  if (!free) return plans;
  const description = `Free plan on a personal key, ${grouped(free.limit)} requests per ${free.window} counted per key`;
  return { ...plans, [FREE_PERSONAL_PLAN]: { ...free, id: FREE_PERSONAL_PLAN, keyedBy: 'key', description } };
}

export const freeRef = (): KeyRef => ({ id: FREE_KEY_ID, plan: 'free', label: 'Shared free key (calls from your IP address)' });
const personalRef = (k: KeyRecord): KeyRef => ({ id: k.id, plan: k.plan, label: `${k.name} (${k.hint ?? k.id})`, record: k });

/** The keys a viewer may look at: the free key for free accounts, and the account's own keys, revoked ones last. */
export async function viewerKeys(deps: PortalDeps, viewer: Viewer): Promise<KeyRef[]> {
  const own = (await deps.keys.ofAccount(viewer.id, { revoked: true })).sort(
    (a, b) => Number(a.revokedAt !== undefined) - Number(b.revokedAt !== undefined) || a.createdAt.localeCompare(b.createdAt),
  );
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

/** An account's key's own use in its window and its cap (undefined for the shared free key). */
export async function keyUseOf(deps: PortalDeps, k: KeyRecord) {
  return deps.usage.keyUse(k.plan, { keyId: k.id, accountId: k.accountId, ...(k.cap !== undefined ? { cap: k.cap } : {}) });
}

/** The allowance an account's keys spend together, for the account itself (with or without keys). */
export async function accountAllowanceOf(deps: PortalDeps, plan: string, accountId: string) {
  return deps.usage.allowance(plan, { keyId: '-', accountId }, undefined);
}

/** A key's allowance now, for calls from `ip`: its account's for an account's key, the address's for the free key. */
export async function allowanceOf(deps: PortalDeps, ref: KeyRef, ip: string | undefined) {
  return deps.usage.allowance(ref.plan, subjectOf(ref), ip);
}

/**
 * Why a key's last-use address needs a word: 'not-recorded' (empty: calls recorded before the usage
 * history read the address while the connection was open; features/usage/usage.ts), or 'private' (a
 * loopback or private address while TRUST_PROXY is off: the service's own network, or a proxy it is not
 * told to trust). Undefined when the address speaks for itself.
 */
export type AddressNote = 'not-recorded' | 'private';

const PRIVATE = new net.BlockList();
for (const [net4, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
] as const)
  PRIVATE.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE.addSubnet(net6, bits, 'ipv6');

export function addressNote(ip: string, trustProxy: unknown): AddressNote | undefined {
  if (!ip) return 'not-recorded';
  if (trustProxy !== false) return undefined;
  const family = net.isIP(ip); // an IPv4-mapped IPv6 address (::ffff:10.0.0.1) is checked as its IPv4 one
  if (!family) return undefined;
  return PRIVATE.check(ip, family === 4 ? 'ipv4' : 'ipv6') ? 'private' : undefined;
}

/** A key's own limits as its holder sets them on the key page: a cap per window, an expiry day (UTC). */
export interface KeyLimits {
  cap?: number;
  expiresAt?: string;
}

/**
 * Reads the limits form: `cap` blank or a whole number from 1 to below the plan's allowance, `expires` blank
 * or a day (YYYY-MM-DD) from tomorrow on, the key working through that day (UTC). Problems, or the limits.
 */
export function keyLimits(
  cap: string,
  expires: string,
  planLimit: number,
  now = Date.now(),
): { problems: string[] } | { limits: KeyLimits } {
  const problems: string[] = [];
  const limits: KeyLimits = {};
  if (cap.trim()) {
    const n = /^\d{1,9}$/.test(cap.trim()) ? Number(cap.trim()) : NaN;
    if (!(n >= 1 && n < planLimit))
      problems.push(`Give the cap as a whole number from 1 to ${planLimit - 1}, below your plan's allowance, or leave it empty.`);
    else limits.cap = n;
  }
  if (expires.trim()) {
    const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expires.trim());
    const end = day ? Date.parse(`${expires.trim()}T23:59:59.999Z`) : NaN;
    if (!day || Number.isNaN(end) || new Date(end).toISOString().slice(0, 10) !== expires.trim())
      problems.push('Give the expiry as a date (YYYY-MM-DD), or leave it empty.');
    else if (end - now < 86_400_000) problems.push('Choose an expiry date from tomorrow on.');
    else limits.expiresAt = new Date(end).toISOString();
  }
  return problems.length ? { problems } : { limits };
}
