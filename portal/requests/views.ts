// The request inspector's pages, for an account (/dashboard/requests) and for operators (/admin/requests):
// the filters and the request-id search, a page of calls newest first with the link to the next, the
// exports of the filter, and a call's page: everything recorded, with the timeline of the providers tried.
import { html, type Safe } from '../../engine/html.js';
import { ERROR_STATUS } from '../../engine/errors.js';
import type { LoggedCall } from '../../features/request-log/entry.js';
import { count, time } from '../shared/format.js';
import { notice } from '../shared/forms.js';

export interface Choice {
  value: string;
  label: string;
}

export interface InspectorPage {
  /** '/dashboard/requests' or '/admin/requests'. */
  base: string;
  /** The filters as asked (the form's values, the links' query). */
  asked: Record<string, string>;
  keys: Choice[];
  endpoints: string[];
  calls: LoggedCall[];
  /** The query of the next page, when there is one. */
  next: string | undefined;
  /** The link of a call's page. */
  callLink: (c: LoggedCall) => string;
  /** Operators: the account each call belongs to. */
  accountOf?: (c: LoggedCall) => string | undefined;
  retention?: string;
  /** REQUEST_LOG is off: no call is recorded now. */
  off?: boolean;
}

const CLASSES = ['2xx', '3xx', '4xx', '5xx'];

const statusBadge = (status: number) => html`<span class="status s${String(status)[0]}xx">${status}</span>`;

const select = (name: string, label: string, asked: string | undefined, choices: Choice[]) =>
  html`<label>${label} <select name="${name}"><option value="">Any</option>${choices.map(
    (c) => html`<option value="${c.value}"${c.value === asked ? ' selected' : ''}>${c.label}</option>`,
  )}</select></label>`;

const query = (asked: Record<string, string>, extra: Record<string, string> = {}) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...asked, ...extra })) if (v) q.set(k, v);
  return q.toString();
};

function filters(p: InspectorPage, admin: boolean): Safe {
  const a = p.asked;
  return html`<form method="get" action="${p.base}" class="row filters" aria-label="Search by request id">
  <label>Request id <input name="requestId" value="${a.requestId ?? ''}" autocomplete="off" spellcheck="false" placeholder="metadata.requestId of an answer"></label>
  <button type="submit">Find</button>
</form>
<form method="get" action="${p.base}" class="row filters" aria-label="Filter the calls">
  ${admin ? html`<label>Account (email or id) <input name="account" value="${a.account ?? ''}" autocomplete="off"></label>` : ''}
  ${p.keys.length ? select('key', 'Key', a.key, p.keys) : admin ? html`<label>Key id <input name="key" value="${a.key ?? ''}" autocomplete="off"></label>` : ''}
  ${select(
    'endpoint',
    'Endpoint',
    a.endpoint,
    p.endpoints.map((e) => ({ value: e, label: e })),
  )}
  ${select(
    'status',
    'Status',
    a.status,
    CLASSES.map((c) => ({ value: c, label: c })),
  )}
  ${select(
    'code',
    'Error code',
    a.code,
    Object.keys(ERROR_STATUS)
      .sort()
      .map((c) => ({ value: c, label: c })),
  )}
  <label>From (UTC) <input type="datetime-local" name="from" value="${a.from ?? ''}"></label>
  <label>To (UTC) <input type="datetime-local" name="to" value="${a.to ?? ''}"></label>
  <button type="submit" class="secondary">Filter</button>
</form>`;
}

export function inspectorBody(p: InspectorPage, admin = false): Safe {
  const exports = query(p.asked);
  return html`<h1>${admin ? 'Requests of every account' : 'Request log'}</h1>
<p class="muted">${
    admin
      ? 'Every call, newest first, with its parameters as recorded (secrets redacted). A request id from a support mail is found in one search.'
      : html`Every call of your account's keys, newest first: what was sent (keys, tokens and passwords never kept) and what was answered. ${p.retention ?? ''}`
  }</p>
${
  p.off
    ? html`<p class="card">The request log is off on this server: calls are not recorded now. Its operator turns it on with <code>REQUEST_LOG=on</code>; what was recorded before is shown here.</p>`
    : ''
}
${filters(p, admin)}
<p class="small">Export this filter: <a href="${p.base}.csv${exports ? `?${exports}` : ''}" download>CSV</a> · <a href="${p.base}.json${exports ? `?${exports}` : ''}" download>JSON</a></p>
${
  p.calls.length
    ? html`<div class="table-wrap"><table class="requests">
  <caption class="sr-only">Calls, newest first</caption>
  <thead><tr><th scope="col">Time (UTC)</th>${admin ? html`<th scope="col">Account</th>` : ''}<th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col" class="num">ms</th><th scope="col">Provider</th><th scope="col">Request id</th></tr></thead>
  <tbody>${p.calls.map(
    (c) =>
      html`<tr><td>${time(c.at, 'seconds')}</td>${admin ? html`<td><code>${p.accountOf?.(c) ?? '—'}</code></td>` : ''}<td><code>${c.method} ${c.endpoint}</code></td><td>${statusBadge(c.status)}</td><td>${c.code ? html`<code>${c.code}</code>` : ''}</td><td class="num">${count(Math.round(c.ms))}</td><td>${c.source ?? ''}${c.cached ? ' (cached)' : ''}</td><td><a href="${p.callLink(c)}"><code>${c.requestId}</code></a></td></tr>`,
  )}</tbody>
</table></div>
${p.next ? html`<p><a href="${p.base}?${p.next}" rel="next">Older calls</a></p>` : html`<p class="small muted">No older calls${p.asked.cursor ? '' : ' match'}.</p>`}`
    : html`<p class="muted">No calls match.</p>`
}`;
}

/** The query of the page after the one that ends with `last`. */
export const nextQuery = (asked: Record<string, string>, last: string) => query(asked, { cursor: last });

function timeline(c: LoggedCall): Safe {
  if (!c.providers.length)
    return html`<p class="muted">${c.cached ? 'Answered from the cache: no provider was asked.' : 'No provider was asked (the call was answered before, or by the service itself).'}</p>`;
  const total = Math.max(1, ...c.providers.map((a) => a.ms));
  return html`<ol class="timeline">${c.providers.map(
    (a) => html`<li>
  <strong>${a.upstream}</strong> ${statusBadge(a.status)}${a.code ? html` <code>${a.code}</code>` : ''}${a.breaker ? html` <span class="badge danger">breaker open: not asked</span>` : ''}
  <span class="small muted">${count(Math.round(a.ms))} ms</span>
  <meter min="0" max="${total}" value="${a.ms}" aria-label="${a.upstream}: ${Math.round(a.ms)} ms"></meter>
</li>`,
  )}</ol>`;
}

const fact = (label: string, value: Safe | string) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`;

export function callBody(c: LoggedCall, o: { back: string; replay: string | undefined; account?: string; duplicates: number }): Safe {
  return html`<p><a href="${o.back}">← Request log</a></p>
<h1>Call <code>${c.requestId}</code></h1>
${o.duplicates > 1 ? notice('info', `This request id was sent with ${o.duplicates} calls: this is the newest.`) : ''}
<dl class="facts">
  ${fact('Time (UTC)', time(c.at, 'seconds'))}
  ${o.account ? fact('Account', html`<code>${o.account}</code>`) : ''}
  ${fact('Key', c.keyId ? html`<code>${c.keyId}</code>` : 'none')}
  ${fact('Endpoint', html`<code>${c.method} ${c.endpoint}</code>`)}
  ${fact('Status', statusBadge(c.status))}
  ${fact('Code', c.code ? html`<code>${c.code}</code>` : '—')}
  ${fact('Duration', `${c.ms} ms`)}
  ${fact('Answered by', c.source ?? '—')}
  ${fact('Cache', c.cached ? 'hit' : 'miss')}
  ${fact('Bytes out', count(c.bytesOut))}
  ${fact('Client address', c.ip ?? 'not kept')}
</dl>
${c.error ? html`<h2>Error</h2><pre tabindex="0"><code>${c.error}</code></pre>` : ''}
<h2 id="timeline-title">Providers tried</h2>
${timeline(c)}
<h2>Parameters</h2>
${
  Object.keys(c.params).length
    ? html`<pre tabindex="0"><code>${JSON.stringify(c.params, null, 2)}</code></pre>`
    : html`<p class="muted">None.</p>`
}
${c.truncated.length ? html`<p class="small muted">Cut to fit 8 KB: ${c.truncated.join(', ')}.</p>` : ''}
${c.uploads.length ? html`<h2>Uploads</h2><ul>${c.uploads.map((u) => html`<li><code>${u.field}</code>: ${u.name} (${u.type}, ${count(u.size)} bytes)</li>`)}</ul>` : ''}
${o.replay ? html`<p><a class="button" href="${o.replay}">Replay in Try it</a> <span class="small muted">Opens the reference with the same parameters; keys and secrets are never kept, so give them again.</span></p>` : ''}`;
}
