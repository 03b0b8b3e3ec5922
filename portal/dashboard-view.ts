// Pieces the API key page and the usage page share: times (UTC on the server, made local by
// dashboard.js), counts, and the allowance of a key as the X-RateLimit-* headers carry it.
import type { Request } from 'express';
import { html, type Safe } from '../engine/html.js';
import type { PortalDeps } from './index.js';
import type { Viewer } from './layout.js';
import type { KeyRecord } from '../engine/access/keystore.js';

export const FREE_KEY_ID = 'free';

export const count = (n: number) => n.toLocaleString('en-US');

/** "2025-06-03 14:05 UTC" (minutes), or the day alone. */
export function utc(iso: string, day = false): string {
  const s = new Date(iso).toISOString();
  return day ? s.slice(0, 10) : `${s.slice(0, 10)} ${s.slice(11, 16)} UTC`;
}

/** A <time> that dashboard.js rewrites in the reader's time zone (`data-local`: its format). */
export const time = (iso: string, format: 'full' | 'short' | 'seconds' | 'day' = 'full') =>
  html`<time datetime="${iso}" data-local="${format}">${utc(iso, format === 'day')}</time>`;

/** A plan's window for people: '24h' → '24 hours'. */
export function windowText(w: string): string {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(w.trim());
  if (!m) return w;
  const unit = { s: 'second', m: 'minute', h: 'hour', d: 'day' }[m[2]]!;
  return `${m[1]} ${unit}${m[1] === '1' ? '' : 's'}`;
}

/** "3 min ago", "in 23 h 5 min". */
export function relative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const min = Math.round(abs / 60_000);
  let span: string;
  if (abs < 60_000) return ms < 0 ? 'just now' : 'in under a minute';
  if (min < 60) span = `${min} min`;
  else if (min < 48 * 60) span = `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
  else span = `${Math.round(min / 1440)} days`;
  return ms < 0 ? `${span} ago` : `in ${span}`;
}

/** Whether the viewer's plan gives personal keys (Premium, Enterprise) and they may be used now. */
export function holdsPersonalKeys(deps: PortalDeps, viewer: Viewer): boolean {
  return viewer.status === 'active' && viewer.plan !== FREE_KEY_ID && deps.plans[viewer.plan]?.keyedBy === 'key';
}

/** What a key's calls count on: the free key per client IP, a personal key by itself. */
export interface KeyRef {
  id: string;
  plan: string;
  label: string;
  record?: KeyRecord;
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

export async function allowanceOf(deps: PortalDeps, ref: KeyRef, req: Request) {
  return deps.usage.allowance(ref.plan, ref.id, req.ip);
}

/** Used, remaining and reset of one allowance, as a definition list's entries. */
export function allowanceFacts(a: { limit: number; used: number; remaining: number; resetAt: number } | undefined): Safe {
  if (!a) return html``;
  const reset = new Date(a.resetAt).toISOString();
  return html`<div><dt>Used in this window</dt><dd><span class="num">${count(a.used)}</span> of ${count(a.limit)}</dd></div>
<div><dt>Remaining</dt><dd><span class="num">${count(a.remaining)}</span></dd></div>
<div><dt>Resets</dt><dd>${relative(reset)} <span class="muted small">(${time(reset)})</span></dd></div>`;
}
