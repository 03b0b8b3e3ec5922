// The public status page: the state of every endpoint now, grouped by category, each with its 90 days of
// uptime as a bar per day, its latency and who answers, and the incidents. Plain HTML and one stylesheet
// (no script): categories fold with <details>, so the page works with a keyboard and without JavaScript,
// and the rows stack at 390 px. The figures are /status.json's (features/health/status.ts).
import { html, type Safe } from '../../engine/html.js';
import type { CategoryStatus, EndpointStatus, StatusDocument } from '../../features/health/status.js';
import type { EndpointState } from '../../features/health/monitor.js';
import type { Incident } from '../../features/health/incidents.js';

/** The page's own styles: a stylesheet link in the body (allowed there), so the shell needs no option for it. */
export const STYLESHEET = html`<link rel="stylesheet" href="/portal/static/status.css">\n`;

export const STATE_WORDS: Record<EndpointState, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  changed: 'Upstream changed',
  down: 'Down',
  not_configured: 'Not configured',
  no_data: 'No data',
};

const BANNER: Record<EndpointState, string> = {
  operational: 'All endpoints are operational',
  no_data: 'No endpoint has been measured lately: no calls and no probes',
  degraded: 'Some endpoints are degraded',
  changed: "An upstream changed its answers' shape",
  down: 'Some endpoints are down',
  not_configured: 'No endpoint is configured on this server',
};

const time = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const ms = (n: number | null) => (n === null ? '—' : n >= 1000 ? `${+(n / 1000).toFixed(1)} s` : `${n} ms`);
const badge = (s: EndpointState) => html`<span class="badge state-${s}">${STATE_WORDS[s]}</span>`;

/** A day's class: every answer good, most, or many failed; no answers. */
const dayClass = (u: number | null) => (u === null ? 'none' : u >= 99 ? 'up' : u >= 80 ? 'part' : 'down');

function bars(e: EndpointStatus, from: string): Safe {
  const start = Date.parse(`${from}T00:00:00Z`);
  const bad = e.daily.filter((u) => u !== null && u < 99).length;
  const label =
    e.uptime === null
      ? 'No answers recorded in 90 days'
      : `Uptime over 90 days: ${e.uptime}%${bad ? `; ${bad} day${bad === 1 ? '' : 's'} with failures` : ''}`;
  // Days without answers are the pattern behind; a bar is drawn only for a day with answers.
  return html`<svg class="bars" viewBox="0 0 ${e.daily.length} 10" preserveAspectRatio="none" role="img" aria-label="${label}"><rect width="${e.daily.length}" height="10" fill="url(#no-data)"/>${e.daily.map(
    (u, i) =>
      u === null
        ? ''
        : html`<rect x="${i}" width="0.75" height="10" class="${dayClass(u)}"><title>${new Date(start + i * 86_400_000).toISOString().slice(0, 10)}: ${u}%</title></rect>`,
  )}</svg>`;
}

function row(e: EndpointStatus, from: string): Safe {
  const probe = e.lastProbe;
  return html`<li class="status-row" id="${e.id.replace('/', '-')}">
  <div class="status-name"><strong>${e.name}</strong> ${badge(e.state)}<br><span class="muted small">${e.summary}</span></div>
  ${bars(e, from)}
  <p class="status-figures small muted">${e.uptime === null ? 'no answers yet' : `${e.uptime}% uptime`} · median ${ms(e.p50Ms)} · p95 ${ms(e.p95Ms)}${
    e.provider
      ? html` · answered by <span class="mono">${e.provider}</span>`
      : e.providers.length
        ? html` · via <span class="mono">${e.providers.join(', ')}</span>`
        : ''
  }${probe ? ` · probed ${time(probe.at)} (${probe.status}${probe.code ? ` ${probe.code}` : ''}, ${ms(probe.ms)})` : ''}</p>
  ${e.note && e.state !== 'no_data' ? html`<p class="status-note small">${e.note}</p>` : ''}
</li>`;
}

function category(c: CategoryStatus, from: string): Safe {
  const trouble = c.endpoints.filter((e) => e.state === 'degraded' || e.state === 'changed' || e.state === 'down').length;
  return html`<details class="status-cat"${trouble ? html` open` : ''} id="category-${c.id}">
<summary><span class="status-cat-name">${c.id}</span> <span class="muted small">${c.endpoints.length} endpoint${c.endpoints.length === 1 ? '' : 's'}</span> ${badge(c.state)}</summary>
<ul class="status-list">${c.endpoints.map((e) => row(e, from))}</ul>
</details>`;
}

function incident(i: Incident): Safe {
  const last = i.updates.at(-1)!;
  return html`<li class="card incident" id="incident-${i.id}">
  <p><strong>${i.endpoint}</strong> ${i.closedAt ? html`<span class="badge">Resolved</span>` : badge(i.state)}</p>
  <p class="small muted">Opened ${time(i.openedAt)}${i.closedAt ? ` · resolved ${time(i.closedAt)}` : ''}</p>
  <p>${last.note}</p>
  ${
    i.updates.length > 1
      ? html`<details><summary>${i.updates.length} updates</summary><ol class="small">${i.updates.map(
          (u) => html`<li>${time(u.at)}: ${STATE_WORDS[u.state]}. ${u.note}</li>`,
        )}</ol></details>`
      : ''
  }
</li>`;
}

export function statusBody(doc: StatusDocument): Safe {
  const open = doc.incidents.filter((i) => !i.closedAt);
  const past = doc.incidents.filter((i) => i.closedAt).slice(0, 20);
  const c = doc.counts;
  const measured = c.operational + c.degraded + c.changed + c.down;
  const configured = measured + c.no_data;
  // "All" only when every configured endpoint was measured: the others are not known to be well.
  const banner =
    doc.state === 'operational' && c.no_data
      ? `Every endpoint measured lately is operational (${measured} of ${configured})`
      : BANNER[doc.state];
  // Only the states some endpoint is in: a "0 operational" beside nothing measured would still read as a claim.
  const parts = (
    [
      ['operational', 'operational'],
      ['degraded', 'degraded'],
      ['changed', 'with a changed upstream'],
      ['down', 'down'],
      ['no_data', 'with no data'],
      ['not_configured', 'not configured here'],
    ] as const
  )
    .filter(([s]) => c[s])
    .map(([s, words]) => `${c[s]} ${words}`);
  const every = doc.probeIntervalMs >= 60_000 ? `${doc.probeIntervalMs / 60_000} min` : `${doc.probeIntervalMs / 1000} s`;
  return html`${STYLESHEET}<svg class="sr-only" aria-hidden="true" focusable="false"><defs><pattern id="no-data" width="1" height="10" patternUnits="userSpaceOnUse"><rect width="0.75" height="10" class="none"/></pattern></defs></svg>
<h1>Status</h1>
<p class="status-banner state-${doc.state}" role="status">${banner}</p>
<p class="small muted">${configured} endpoints configured, ${measured} measured lately: ${parts.join(', ')}. ${
    doc.probeIntervalMs
      ? `Probes run every ${every}; real calls count too.`
      : 'This server runs no probes on a schedule: states come from real calls only.'
  } Updated ${time(doc.generatedAt)}. <a href="/status.json">JSON</a> · <a href="/status/feed.atom">Incidents feed (Atom)</a></p>
<section aria-labelledby="incidents-title">
<h2 id="incidents-title">Incidents</h2>
${open.length ? html`<ul class="incidents">${open.map(incident)}</ul>` : html`<p class="muted">No open incidents.</p>`}
${past.length ? html`<details class="past"><summary>Resolved in the last 90 days (${past.length})</summary><ul class="incidents">${past.map(incident)}</ul></details>` : ''}
</section>
<section aria-labelledby="endpoints-title">
<h2 id="endpoints-title">Endpoints</h2>
<p class="small muted legend">Each bar is a day (UTC) of the last ${doc.days}, oldest first, from probes and real calls:
<span class="key up"></span> all good <span class="key part"></span> some failed <span class="key down"></span> many failed <span class="key none"></span> no answers.</p>
${doc.categories.map((cat) => category(cat, doc.from))}
</section>`;
}
