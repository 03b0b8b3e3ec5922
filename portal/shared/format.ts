// Figures as the dashboard pages show them: times (UTC on the server, made local by dashboard.js), counts,
// plan windows, relative times, and the allowance of a key as the X-RateLimit-* headers carry it.
import { html, type Safe } from '../../engine/html.js';
import type { AllowanceFigures } from './types.js';

export const count = (n: number) => n.toLocaleString('en-US');

/** A plan's id as a name: 'premium' → 'Premium'. */
export const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

/** "2025-06-03 14:05 UTC" (minutes), or the day alone. */
function utc(iso: string, day = false): string {
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

/** Used, remaining and reset of one allowance, as a definition list's entries. */
export function allowanceFacts(a: AllowanceFigures | undefined): Safe {
  if (!a) return html``;
  const reset = new Date(a.resetAt).toISOString();
  return html`<div><dt>Used in this window</dt><dd><span class="num">${count(a.used)}</span> of ${count(a.limit)}</dd></div>
<div><dt>Remaining</dt><dd><span class="num">${count(a.remaining)}</span></dd></div>
<div><dt>Resets</dt><dd>${relative(reset)} <span class="muted small">(${time(reset)})</span></dd></div>`;
}
