// The webhook page: the endpoint form (URL and the events it receives), the signing secret with "roll
// secret", "send a test event" and "remove", the last attempts with what each answer said (its first
// bytes, escaped like everything else), how to verify a delivery, and the refusals of its actions.
import { html, type Safe } from '../../engine/html.js';
import { ACCOUNT_EVENT_TYPES, type AccountEventType } from '../../engine/access/account-events.js';
import { QUEUE_CAP, TEST_EVENT } from './deliveries.js';
import type { AttemptRecord } from './attempt-log.js';
import { URL_MAX } from './settings.js';
import { csrfField, errors, notice } from '../shared/forms.js';
import { relative, time } from '../shared/format.js';

const DONE: Record<string, string> = {
  created: 'Your webhook is set. Copy its signing secret into your receiver: every delivery is signed with it.',
  saved: 'Your webhook is saved.',
  rolled: 'A new signing secret is made. The previous one keeps signing beside it for 24 hours.',
  test: 'A test event is on its way: its delivery shows below in a moment (reload the page).',
  'test-waiting': 'A test event is still on its way (or waiting to be tried again): send another once it has been delivered or given up.',
  full: `No test event was sent: ${QUEUE_CAP} deliveries are waiting for your endpoint already. Make it answer, or remove the webhook to drop them.`,
  removed: 'Your webhook is removed: no more events are sent, and deliveries still waiting are dropped.',
};

const EVENTS: Record<AccountEventType, string> = {
  'quota.warning': '80% of your plan’s allowance used in the current window',
  'quota.exhausted': 'the whole allowance used: calls are refused (429) until the window resets',
  'key.created': 'an API key was made (by you, a rotation or an admin)',
  'key.revoked': 'an API key stopped working: revoked, or replaced by a rotation',
  'plan.changed': 'your account moved to another plan',
};

export interface WebhooksPage {
  csrf?: string;
  done?: string;
  problems?: string[];
  /** What the form shows: the saved settings, or what was typed when the form comes back refused. */
  form: { url: string; events: AccountEventType[] };
  /** The saved webhook, when there is one. */
  saved?: {
    /** whsec_… */
    secret: string;
    /** Until when the secret before a roll still signs. */
    previousUntil?: string;
    stopped?: { at: string; reason: string };
  };
  /** The last attempts, newest first. */
  deliveries: AttemptRecord[];
  /** The delays between attempts. */
  retryDelaysMs: number[];
}

/** "5 s", "2 min", "1 h" */
function delayText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 3_600_000).toFixed(1)} h`;
}

export function webhooksBody(o: WebhooksPage): Safe {
  const done = o.done !== undefined ? DONE[o.done] : undefined;
  const s = o.saved;
  return html`<h1>Webhooks</h1>
${done ? notice(o.done === 'test-waiting' || o.done === 'full' ? 'info' : 'ok', done) : ''}
${errors(o.problems ?? [])}
${s?.stopped ? notice('error', html`Deliveries are stopped since ${time(s.stopped.at)}. ${s.stopped.reason} Save the form to start them again.`) : ''}
<p class="lead">Your server can hear what happens to your account: each event is sent to your URL as a POST, signed as the <a href="https://www.standardwebhooks.com">Standard Webhooks</a> specification says.</p>
<section class="card" aria-labelledby="endpoint-title">
  <h2 id="endpoint-title">Endpoint</h2>
  <form method="post" action="/dashboard/webhooks" class="stack webhook-form">
    ${csrfField(o.csrf)}
    <label>URL <span class="hint" id="url-hint">https://…, where your server receives the POST requests</span>
      <input name="url" type="url" required maxlength="${URL_MAX}" value="${o.form.url}" autocomplete="off" aria-describedby="url-hint"></label>
    <fieldset class="events">
      <legend>Events to receive</legend>
      ${ACCOUNT_EVENT_TYPES.map(
        (t) =>
          html`<label class="check"><input type="checkbox" name="events" value="${t}"${o.form.events.includes(t) ? html` checked` : ''}> <span><code>${t}</code> <span class="hint">${EVENTS[t]}</span></span></label>`,
      )}
    </fieldset>
    <button type="submit">${s ? 'Save webhook' : 'Set webhook'}</button>
  </form>
</section>
${s ? savedCards(o, s) : ''}
${deliveriesSection(o)}
${verifyCard()}`;
}

function savedCards(o: WebhooksPage, s: NonNullable<WebhooksPage['saved']>): Safe {
  const fresh = o.done === 'created' || o.done === 'rolled';
  return html`<section class="card" aria-labelledby="secret-title">
  <h2 id="secret-title">Signing secret</h2>
  <p>Every delivery carries the headers <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>; your receiver checks them with this secret.</p>
  <details${fresh ? html` open` : ''}><summary>Show the secret</summary>
    <div class="secret"><code id="webhook-secret">${s.secret}</code><button type="button" class="small secondary" data-copy="webhook-secret" hidden>Copy</button></div>
  </details>
  ${s.previousUntil ? html`<p class="small muted">The previous secret also signs every delivery until ${time(s.previousUntil)} (${relative(s.previousUntil)}), so a receiver that still holds it keeps working.</p>` : ''}
  <form method="post" action="/dashboard/webhooks/secret" class="row">
    ${csrfField(o.csrf)}
    <button type="submit" class="secondary">Roll secret</button>
  </form>
  <p class="small muted">Rolling makes a new secret; the old one keeps signing beside it for 24 hours.</p>
</section>
<section class="card" aria-labelledby="try-title">
  <h2 id="try-title">Test and remove</h2>
  <div class="actions">
    <form method="post" action="/dashboard/webhooks/test">
      ${csrfField(o.csrf)}
      <button type="submit" class="secondary">Send a test event</button>
    </form>
    <form method="post" action="/dashboard/webhooks/remove">
      ${csrfField(o.csrf)}
      <button type="submit" class="danger">Remove webhook</button>
    </form>
  </div>
  <p class="small muted">The test event is <code>${TEST_EVENT}</code>, whatever events you chose.</p>
</section>`;
}

function answerOf(d: AttemptRecord): Safe {
  const status =
    d.status !== undefined
      ? html`<span class="status s${String(d.status)[0]}xx">${d.status}</span>`
      : html`<span class="status s5xx">no answer</span>`;
  return html`${status}${d.error ? html` <span class="small">${d.error}</span>` : ''}${d.body ? html`<pre class="wrap answer" tabindex="0"><code>${d.body}</code></pre>` : ''}`;
}

function nextOf(d: AttemptRecord): Safe {
  if (d.outcome === 'delivered') return html`<span class="badge ok">Delivered</span>`;
  if (d.outcome === 'stopped') return html`<span class="badge danger">Stopped (410 Gone)</span>`;
  if (d.outcome === 'failed') return html`<span class="badge danger">Gave up</span>`;
  if (!d.nextAt) return html`<span class="badge warn">Retry</span>`;
  // Once due, "just now" or "3 min ago" would read as done: the time alone says when it was due.
  const soon = Date.parse(d.nextAt) > Date.now();
  return html`<span class="badge warn">Retry</span> ${soon ? relative(d.nextAt) : ''} <span class="muted small">(${time(d.nextAt, 'seconds')})</span>`;
}

function deliveriesSection(o: WebhooksPage): Safe {
  const rows = o.deliveries.map(
    (d) =>
      html`<tr><td>${time(d.at, 'seconds')}</td><td><code>${d.type}</code><br><span class="small muted mono">${d.id}</span></td><td class="num">${d.attempt} of ${d.attempts}</td><td>${answerOf(d)}</td><td>${nextOf(d)}</td></tr>`,
  );
  const attempts = o.retryDelaysMs.length + 1;
  return html`<section aria-labelledby="deliveries-title">
  <h2 id="deliveries-title">Recent deliveries</h2>
  <p class="small muted">The last 20 attempts, newest first. A delivery is tried up to ${attempts} ${attempts === 1 ? 'time' : 'times'}${o.retryDelaysMs.length ? ` (again after ${o.retryDelaysMs.map(delayText).join(', ')})` : ''} until your endpoint answers with a 2xx status; every attempt has the same <code>webhook-id</code>. Only the first 512 bytes of an answer are kept.</p>
  ${
    rows.length
      ? html`<div class="table-wrap"><table>
    <caption class="sr-only">The last delivery attempts, newest first</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col" class="num">Attempt</th><th scope="col">Answer</th><th scope="col">Next</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
      : html`<p class="muted">No deliveries yet.</p>`
  }
</section>`;
}

function verifyCard(): Safe {
  return html`<section class="card" aria-labelledby="verify-title">
  <h2 id="verify-title">Verify a delivery</h2>
  <p>The body is JSON, <code>{ "type": "quota.warning", "timestamp": "…", "data": { … } }</code>, and its signature covers the exact bytes sent: check it on the raw body, before parsing. With the <code>standardwebhooks</code> package for Node (Standard Webhooks has libraries for Python, Go, Ruby, PHP, Java, C#, Rust and Elixir too):</p>
  <pre class="wrap"><code>import { Webhook } from 'standardwebhooks';

// Throws unless the signature and a recent timestamp check out.
const event = new Webhook(process.env.WEBHOOK_SECRET).verify(rawBody, request.headers);</code></pre>
  <p class="small muted">A retried delivery keeps its <code>webhook-id</code>: keep the ids you processed for a while and skip one you have seen.</p>
</section>`;
}

const back = html`<a href="/dashboard/webhooks">Back to your webhook</a>`;

/** Why a webhook action is refused, each with the way back. */
export const webhookRefusals = {
  none: () => html`Set your webhook’s URL first. ${back}`,
  stopped: () => html`Your endpoint asked for no more deliveries (410 Gone): save the webhook to start them again. ${back}`,
};
