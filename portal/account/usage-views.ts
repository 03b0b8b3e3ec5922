// The usage page: for one key, the allowance now, the last 24 hours by hour and 30 days by day stacked by
// status class with median and p95 latency, counts per endpoint, the last 50 calls, and the CSV export of
// a period. The charts are SVG drawn on the server (usage-chart.ts); the tables under them carry every figure.
import { html, type Safe } from '../../engine/html.js';
import type { History } from '../../features/usage/usage.js';
import type { KeyRef, KeyUsage } from '../shared/types.js';
import { notice } from '../shared/forms.js';
import { allowanceFacts, count, time } from '../shared/format.js';
import { usageChart } from './usage-chart.js';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

interface UsagePage {
  /** The keys the viewer may pick from, and the one shown. */
  refs: KeyRef[];
  ref: KeyRef;
  /** The viewer's address (the free key is counted per client IP). */
  ip: string | undefined;
  usage: KeyUsage;
}

/** When the viewer holds no key to show. */
export const noKeysBody = () =>
  html`<h1>Usage</h1>
${notice('info', html`You have no keys yet. <a href="/dashboard">Create one on the API keys page</a>; its calls are counted here.`)}`;

/** A ?key= that is not one of the viewer's. */
export const noSuchKey = () => html`There is no such key in your account. <a href="/dashboard/usage">Usage of your keys</a>`;

export function usageBody(o: UsagePage) {
  const { refs, ref, usage: u } = o;
  const csv = (period: string) => `/dashboard/usage.csv?key=${encodeURIComponent(ref.id)}&period=${period}`;
  return html`<h1>Usage</h1>
${
  refs.length > 1
    ? html`<form method="get" action="/dashboard/usage" class="row key-picker">
  <label>Key <select name="key">${refs.map((k) => html`<option value="${k.id}"${k.id === ref.id ? html` selected` : ''}>${k.label}${k.record?.revokedAt ? ' — revoked' : k.record?.disabled ? ' — disabled' : ''}</option>`)}</select></label>
  <button type="submit" class="secondary">Show</button>
</form>`
    : ref.record
      ? html`<p class="muted">${ref.label}</p>`
      : ''
}
${ref.record?.revokedAt ? notice('info', html`This key was revoked on ${time(ref.record.revokedAt)}: calls with it are refused, and the calls it made are kept here.`) : ref.record?.disabled ? notice('info', 'This key is disabled: calls with it are refused.') : ''}
${ref.record?.accountId ? html`<p class="muted small">Every key of your account spends the account's one allowance.</p>` : ''}
${ref.record || ref.id === 'all' ? '' : html`<p class="muted">The shared free key: the calls made with it from your address (<code>${o.ip ?? 'unknown'}</code>), which has an allowance of its own.</p>`}
<section class="card" aria-labelledby="allowance-title">
  <h2 id="allowance-title">Allowance now</h2>
  <dl class="facts">${allowanceFacts(u.allowance && { ...u.allowance, resetAt: Date.parse(u.allowance.resetAt) })}</dl>
  ${refunded(u.hourly)}
</section>
${period('hourly', 'Last 24 hours, by hour', u.hourly, csv('hour'))}
${period('daily', 'Last 30 days, by day', u.daily, csv('day'))}
<section aria-labelledby="recent-title">
  <h2 id="recent-title">Last calls</h2>
  <p class="small muted">Up to 50, newest first: time, endpoint, status and duration only (never parameters or keys).</p>
  ${
    u.recent.length
      ? html`<div class="table-wrap"><table>
    <caption class="sr-only">The most recent calls, newest first</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col" class="num">ms</th></tr></thead>
    <tbody>${u.recent.map((c) => html`<tr><td>${time(c.at, 'seconds')}</td><td><code>${c.endpoint}</code></td><td><span class="status s${String(c.status)[0]}xx">${c.status}</span></td><td class="num">${count(c.ms)}</td></tr>`)}</tbody>
  </table></div>`
      : html`<p class="muted">No calls yet.</p>`
  }
</section>`;
}

/** One period as CSV: a row per bucket with its calls by status class and latency. */
export function usageCsv(h: History): string {
  const rows = [['start', 'total', ...CLASSES, 'p50_ms', 'p95_ms'].join(',')];
  for (const b of h.buckets)
    rows.push([b.start, b.total, ...CLASSES.map((c) => b.classes[c] ?? 0), b.p50Ms ?? '', b.p95Ms ?? ''].join(','));
  return rows.join('\r\n') + '\r\n';
}

/** Why the calls below may outnumber the allowance's "used": failures on the service's side are given back. */
function refunded(h: History): Safe | string {
  const n = h.buckets.reduce((s, b) => s + (b.classes['5xx'] ?? 0), 0);
  if (!n) return '';
  return html`<p class="small muted">${count(n)} call${n === 1 ? '' : 's'} in the last 24 hours failed on the service's side (5xx) and ${n === 1 ? 'was' : 'were'} given back: listed below, not counted as used.</p>`;
}

/** One period: its chart, the figures per bucket (folded: the chart shows them) and per endpoint as tables. */
function period(id: 'hourly' | 'daily', title: string, h: History, csv: string): Safe {
  const classes = usedClasses(h);
  const day = id === 'daily';
  return html`<section class="period" aria-labelledby="${id}-title">
  <h2 id="${id}-title">${title}</h2>
  <div class="grid figures">
    <div class="card"><div class="muted small">Calls</div><div class="stat">${count(h.total)}</div></div>
    <div class="card"><div class="muted small">Median latency</div><div class="stat">${ms(h.p50Ms)}</div></div>
    <div class="card"><div class="muted small">p95 latency</div><div class="stat">${ms(h.p95Ms)}</div></div>
  </div>
  <figure class="chart">${usageChart(h, { id, unit: day ? 'day' : 'hour', classes })}</figure>
  <p class="small"><a href="${csv}" download>Download CSV</a></p>
  <details class="table-details"><summary>Figures per ${day ? 'day' : 'hour'}</summary>
  <div class="table-wrap"><table>
    <thead><tr><th scope="col">${day ? 'Day (UTC)' : 'Hour'}</th><th scope="col" class="num">Calls</th>${classes.map((c) => html`<th scope="col" class="num">${c}</th>`)}<th scope="col" class="num">Median ms</th><th scope="col" class="num">p95 ms</th></tr></thead>
    <tbody>${[...h.buckets].reverse().map((b) => html`<tr><td>${time(b.start, day ? 'day' : 'short')}</td><td class="num">${count(b.total)}</td>${classes.map((c) => html`<td class="num">${count(b.classes[c] ?? 0)}</td>`)}<td class="num">${b.p50Ms ?? '–'}</td><td class="num">${b.p95Ms ?? '–'}</td></tr>`)}</tbody>
  </table></div>
  </details>
  <h3>Per endpoint</h3>
  ${
    h.endpoints.length
      ? html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">Calls</th>${classes.map((c) => html`<th scope="col" class="num">${c}</th>`)}</tr></thead>
    <tbody>${h.endpoints.map((e) => html`<tr><td><code>${e.endpoint}</code></td><td class="num">${count(e.total)}</td>${classes.map((c) => html`<td class="num">${count(e.classes[c] ?? 0)}</td>`)}</tr>`)}</tbody>
  </table></div>`
      : html`<p class="muted">No calls in this period.</p>`
  }
</section>`;
}

const ms = (v: number | null) => (v === null ? '–' : `${count(v)} ms`);

/** The status classes worth a column: 2xx and 4xx always, the others when they occurred. */
function usedClasses(h: History): string[] {
  return CLASSES.filter((c) => c === '2xx' || c === '4xx' || h.buckets.some((b) => (b.classes[c] ?? 0) > 0));
}
