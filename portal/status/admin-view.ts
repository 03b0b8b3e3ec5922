// The admin's probes page (routes in admin.ts): each probeable endpoint's state and last probe, with a
// "Probe now" button per row.
import { html } from '../../engine/html.js';
import type { Judgement, ProbeRecord } from '../../features/health/monitor.js';
import { csrfField, notice } from '../shared/forms.js';
import { STATE_WORDS, STYLESHEET } from './view.js';

export interface ProbeRow {
  id: string;
  judged: Judgement;
  last: ProbeRecord | undefined;
}

export interface ProbesPage {
  csrf?: string;
  rows: ProbeRow[];
  /** The row just probed, to show its outcome. */
  probed?: ProbeRow;
  intervalMs: number;
  only: string[];
  webhook: boolean;
  alertEmail: string | undefined;
  failuresToAlert: number;
}

const outcome = (p: ProbeRecord) => `${p.status}${p.code ? ` ${p.code}` : ''} in ${p.ms} ms${p.source ? ` from ${p.source}` : ''}`;

export function probesBody(o: ProbesPage) {
  const csrf = csrfField(o.csrf);
  const every = o.intervalMs
    ? `every ${o.intervalMs >= 60_000 ? `${o.intervalMs / 60_000} min` : `${o.intervalMs / 1000} s`}`
    : 'only on demand (PROBE_INTERVAL is off)';
  return html`${STYLESHEET}<p><a href="/admin">← Accounts</a></p>
<h1>Probes</h1>
${o.probed?.last ? notice(o.probed.last.verdict === 'ok' ? 'ok' : 'error', `${o.probed.id} answered ${outcome(o.probed.last)}.`) : ''}
<p>Each endpoint's documented example request runs through the engine, never metered, ${every}${o.only.length ? ` (on the schedule: ${o.only.join(', ')} only)` : ''}. The public page is <a href="/status">/status</a>.</p>
<p class="muted small">Alerts (a circuit breaker opens or closes; a probe fails ${o.failuresToAlert} times in a row): ${o.webhook ? 'to the webhook (ALERT_WEBHOOK_URL)' : 'no webhook (ALERT_WEBHOOK_URL is not set)'}${o.alertEmail ? `, and by mail to ${o.alertEmail}` : ''}.</p>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Endpoint</th><th scope="col">State</th><th scope="col">Last probe (UTC)</th><th scope="col">Outcome</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${o.rows.map(
    (
      r,
    ) => html`<tr id="probe-${r.id.replace('/', '-')}"><td class="mono">${r.id}</td><td><span class="badge state-${r.judged.state}">${STATE_WORDS[r.judged.state]}</span></td>
<td>${r.last ? r.last.at.slice(0, 19).replace('T', ' ') : '—'}</td><td>${r.last ? outcome(r.last) : html`<span class="muted">never probed</span>`}</td>
<td><form method="post" action="/admin/status/probe" class="inline">${csrf}<input type="hidden" name="endpoint" value="${r.id}"><button type="submit" class="small" aria-label="Probe now: ${r.id}">Probe now</button></form></td></tr>`,
  )}</tbody>
</table></div>`;
}
