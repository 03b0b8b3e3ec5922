// The usage page: for one of the viewer's keys (the free key for a free account, counted for its client
// IP), the allowance as the X-RateLimit-* headers carry it, the last 24 hours by hour and 30 days by day
// stacked by status class with median and p95 latency, counts per endpoint, the last 50 calls, and a CSV
// export. Tables carry every figure without JavaScript; charts.js draws the charts from a JSON block
// (data, never executed, so allowed under default-src 'self') with chart.js served from node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type Request, type Response, type Router } from 'express';
import { html, raw, type Safe } from '../engine/html.js';
import type { PortalDeps } from './index.js';
import type { Viewer } from './layout.js';
import { PageError, wrap, type Pages } from './pages.js';
import { notice } from './forms.js';
import { assetHeaders } from './security.js';
import { keyUsage } from '../engine/access/account-usage.js';
import type { History } from '../engine/access/usage.js';
import { allowanceFacts, count, time, viewerKeys, type KeyRef } from './dashboard-view.js';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

// chart.js's UMD build, from wherever npm put it; the version in the URL lets browsers keep it for a year.
const chartDist = path.dirname(createRequire(import.meta.url).resolve('chart.js'));
const chartVersion = (JSON.parse(fs.readFileSync(path.join(chartDist, '..', 'package.json'), 'utf8')) as { version: string }).version;
export const CHART_URL = `/portal/vendor/chartjs/${chartVersion}/chart.umd.min.js`;

type Usage = Awaited<ReturnType<typeof keyUsage>> & { hourly: History; daily: History };

export function usageRoutes(deps: PortalDeps, pages: Pages): Router {
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  r.get(CHART_URL, (_req, res, next) => {
    assetHeaders(res);
    res.sendFile(path.join(chartDist, 'chart.umd.min.js'), { maxAge: '365d', immutable: true }, (err) => err && next(err));
  });

  /** The key asked for (`?key=`), among the viewer's own; the first of them when none is asked for. */
  const chosen = async (req: Request, res: Response): Promise<{ refs: KeyRef[]; ref?: KeyRef }> => {
    const refs = await viewerKeys(deps, viewerOf(res));
    const asked = typeof req.query.key === 'string' ? req.query.key : undefined;
    if (asked === undefined) return { refs, ref: refs.find((k) => !k.record || !k.record.disabled) ?? refs[0] };
    const ref = refs.find((k) => k.id === asked);
    if (!ref)
      throw new PageError(
        404,
        'No such key',
        html`There is no such key in your account. <a href="/dashboard/usage">Usage of your keys</a>`,
      );
    return { refs, ref };
  };

  const usageOf = (req: Request, ref: KeyRef) => keyUsage(deps.usage, ref.plan, ref.id, req.ip) as Promise<Usage>;

  r.get(
    '/dashboard/usage',
    wrap(async (req, res) => {
      const { refs, ref } = await chosen(req, res);
      if (!ref) {
        return pages.send(
          res,
          'Usage',
          html`<h1>Usage</h1>
${notice('info', html`You have no keys yet. <a href="/dashboard">Create one on the API keys page</a>; its calls are counted here.`)}`,
        );
      }
      const u = await usageOf(req, ref);
      const csv = (period: string) => `/dashboard/usage.csv?key=${encodeURIComponent(ref.id)}&period=${period}`;
      const body = html`<h1>Usage</h1>
${
  refs.length > 1
    ? html`<form method="get" action="/dashboard/usage" class="row key-picker">
  <label>Key <select name="key">${refs.map((k) => html`<option value="${k.id}"${k.id === ref.id ? html` selected` : ''}>${k.label}${k.record?.disabled ? ' — disabled' : ''}</option>`)}</select></label>
  <button type="submit" class="secondary">Show</button>
</form>`
    : ref.record
      ? html`<p class="muted">${ref.label}</p>`
      : ''
}
${ref.record?.disabled ? notice('info', 'This key is disabled: calls with it are refused.') : ''}
${ref.record ? '' : html`<p class="muted">The shared free key: the calls made with it from your address (<code>${req.ip ?? 'unknown'}</code>), which has an allowance of its own.</p>`}
<section class="card" aria-labelledby="allowance-title">
  <h2 id="allowance-title">Allowance now</h2>
  <dl class="facts">${allowanceFacts(u.allowance && { ...u.allowance, resetAt: Date.parse(u.allowance.resetAt) })}</dl>
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
</section>
<script type="application/json" id="usage-data">${raw(chartJson(u))}</script>`;
      pages.send(res, 'Usage', body, { scripts: [CHART_URL, '/portal/static/dashboard.js', '/portal/static/charts.js'] });
    }),
  );

  r.get(
    '/dashboard/usage.csv',
    wrap(async (req, res) => {
      const { ref } = await chosen(req, res);
      const p = req.query.period === 'day' ? 'day' : req.query.period === 'hour' || req.query.period === undefined ? 'hour' : undefined;
      if (!ref || !p) throw new PageError(400, 'Bad request', 'Ask for a key of yours and period=hour or period=day.');
      const u = await usageOf(req, ref);
      const h = p === 'hour' ? u.hourly : u.daily;
      const rows = [['start', 'total', ...CLASSES, 'p50_ms', 'p95_ms'].join(',')];
      for (const b of h.buckets)
        rows.push([b.start, b.total, ...CLASSES.map((c) => b.classes[c] ?? 0), b.p50Ms ?? '', b.p95Ms ?? ''].join(','));
      res
        .set('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8')
        .attachment(`usage-${ref.id}-${p === 'hour' ? 'hourly' : 'daily'}.csv`)
        .send(rows.join('\r\n') + '\r\n');
    }),
  );

  return r;
}

/** One period: its chart (drawn by charts.js), the figures per bucket and per endpoint as tables. */
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
  <div class="chart" data-chart="${id}" hidden><canvas role="img" aria-label="${title}: calls per ${day ? 'day' : 'hour'} by status class, with median and 95th-percentile latency (figures in the table below)"></canvas></div>
  <p class="small"><a href="${csv}" download>Download CSV</a></p>
  <details class="table-details" data-figures open><summary>Figures per ${day ? 'day' : 'hour'}</summary>
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

/** The charts' data; `<` escaped so nothing in it can end the <script> block. */
function chartJson(u: Usage): string {
  const series = (h: History) => {
    const classes = usedClasses(h);
    return {
      starts: h.buckets.map((b) => b.start),
      classes: Object.fromEntries(classes.map((c) => [c, h.buckets.map((b) => b.classes[c] ?? 0)])),
      p50: h.buckets.map((b) => b.p50Ms),
      p95: h.buckets.map((b) => b.p95Ms),
    };
  };
  return JSON.stringify({ hourly: series(u.hourly), daily: series(u.daily) }).replace(/</g, '\\u003c');
}
