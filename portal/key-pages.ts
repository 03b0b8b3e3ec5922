// The API key page (spec §2.3): a Free account sees the shared free key and its allowance for its client
// IP; a Premium or Enterprise account creates, renames, rotates (with a grace period for the old key) and
// revokes personal keys. A new key is shown once, in the answer to the POST that made it (never in a URL
// or a redirect), and only its hint afterwards. Every action looks the key up within the signed-in
// account: another account's key id is answered as if it did not exist.
import express, { type Request, type Response, type Router } from 'express';
import { html, type Safe } from '../engine/html.js';
import type { PortalDeps } from './index.js';
import type { Viewer } from './layout.js';
import { PageError, wrap, type Pages } from './pages.js';
import { csrfField, errors, notice, posted } from './forms.js';
import { isLive, type KeyRecord } from '../engine/access/keystore.js';
import {
  allowanceFacts,
  count,
  FREE_KEY_ID,
  holdsPersonalKeys,
  personalRef,
  relative,
  time,
  allowanceOf,
  freeRef,
  windowText,
} from './dashboard-view.js';

const NAME_MAX = 60;
const MAX_KEYS = 20;
const ID_SHAPE = /^[0-9a-f]{12}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const GRACE: Record<string, { ms: number; label: string }> = {
  none: { ms: 0, label: 'No: refuse it at once' },
  '1h': { ms: 3_600_000, label: '1 hour' },
  '24h': { ms: 86_400_000, label: '24 hours' },
};
const DONE: Record<string, string> = {
  renamed: 'The key was renamed.',
  revoked: 'The key was revoked: calls with it are refused (401) from now on.',
};

function nameProblem(name: string): string | undefined {
  if (!name) return 'Give the key a name, such as the app or server that will use it.';
  if (name.length > NAME_MAX || CONTROL.test(name)) return `Use at most ${NAME_MAX} characters for the name, without line breaks.`;
  return undefined;
}

/** A freshly made key, to show once. */
interface Fresh {
  key: string;
  record: KeyRecord;
  replaced?: KeyRecord;
}

export function keyRoutes(deps: PortalDeps, pages: Pages): Router {
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  /** The viewer's own key with this id, or a 404 page (whoever else holds it). */
  const ownKey = async (req: Request, res: Response): Promise<KeyRecord> => {
    const id = String(req.params.id);
    const rec = ID_SHAPE.test(id) ? await deps.keys.get(id) : undefined;
    if (!rec || rec.accountId !== viewerOf(res).id)
      throw new PageError(404, 'No such key', html`There is no such key in your account. <a href="/dashboard">Back to your keys</a>`);
    return rec;
  };

  const show = async (req: Request, res: Response, o: { fresh?: Fresh; problems?: string[]; name?: string; status?: number } = {}) => {
    const viewer = viewerOf(res);
    const paid = holdsPersonalKeys(deps, viewer);
    const own = (await deps.keys.list({ accountId: viewer.id })).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const used = await deps.keys.lastUsed(own.map((k) => k.id));
    const allowances = await Promise.all(own.map((k) => allowanceOf(deps, personalRef(k), req)));
    const done = typeof req.query.done === 'string' ? DONE[req.query.done] : undefined;
    const csrf = res.locals.csrf;

    const cards = own.map((k, i) => keyCard(k, used.get(k.id), allowances[i], csrf, o.fresh?.record.id === k.id));
    const body = html`<h1>API keys</h1>
${done ? notice('ok', done) : ''}
${errors(o.problems ?? [])}
${o.fresh ? freshCard(o.fresh) : ''}
${paid ? html`` : await freeCard(req)}
${
  paid
    ? html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a key</h2>
  ${
    own.filter((k) => isLive(k)).length >= MAX_KEYS
      ? html`<p>You hold ${MAX_KEYS} keys, the most an account may hold. Revoke one you no longer use to make another.</p>`
      : html`<form method="post" action="/dashboard/keys" class="row">
    ${csrfField(csrf)}
    <label>Name <span class="hint">what will use it, e.g. “billing server”</span>
      <input name="name" required maxlength="${NAME_MAX}" value="${o.name ?? ''}" autocomplete="off"></label>
    <button type="submit">Create key</button>
  </form>
  <p class="small muted">Each key has its own allowance of ${count(deps.plans[viewer.plan].limit)} requests per ${windowText(deps.plans[viewer.plan].window)} (${planName(viewer.plan)} plan). The whole key is shown once, when it is made.</p>`
  }
</section>`
    : ''
}
${
  own.length
    ? html`<h2>${paid ? 'Your keys' : 'Your personal keys'}</h2>
${paid ? '' : notice('info', 'Personal keys work only on the Premium and Enterprise plans, for active accounts: these are kept but refused while your account is on the Free plan.')}
<div class="keys">${cards}</div>`
    : paid
      ? html`<p class="muted">No keys yet: create your first one above.</p>`
      : ''
}
${snippet(deps, paid ? undefined : deps.config.freeKey, o.fresh?.key)}`;
    pages.send(res, 'API keys', body, { status: o.status, scripts: ['/portal/static/dashboard.js'] });
  };

  const freeCard = async (req: Request): Promise<Safe> => {
    const free = deps.plans.free;
    const a = await allowanceOf(deps, freeRef(), req);
    return html`<section class="card" aria-labelledby="free-title">
  <h2 id="free-title">Your key: the shared free key</h2>
  <p>Free accounts call the API with this key:</p>
  <div class="secret"><code id="free-key" data-api-key>${deps.config.freeKey}</code><button type="button" class="secondary small" data-copy="free-key" hidden>Copy</button></div>
  <p>It allows <strong>${count(free.limit)} requests per ${windowText(free.window)}, counted per client IP address</strong>: every address has its own count. From your address now (<code>${req.ip ?? 'unknown'}</code>):</p>
  <dl class="facts">${allowanceFacts(a)}</dl>
  <p class="small muted">Personal keys, each with its own allowance (Premium: ${count(deps.plans.premium?.limit ?? 0)}, Enterprise: ${count(deps.plans.enterprise?.limit ?? 0)} per 24 h), come with a paid plan: ask the service's operators. <a href="/dashboard/usage?key=${FREE_KEY_ID}">Usage of this key</a></p>
</section>`;
  };

  r.get(
    '/dashboard',
    wrap((req, res) => show(req, res)),
  );
  // A reload of the page a key was shown on comes here as a GET: the key is not shown again.
  r.get('/dashboard/keys', (_req, res) => res.redirect(303, '/dashboard'));

  r.post(
    '/dashboard/keys',
    wrap(async (req, res) => {
      const viewer = viewerOf(res);
      if (!holdsPersonalKeys(deps, viewer))
        throw new PageError(
          403,
          'Personal keys need a paid plan',
          html`Free accounts use the shared free key. <a href="/dashboard">Back to your key</a>`,
        );
      const name = posted(req, 'name', 300).trim();
      const problem = nameProblem(name);
      if (problem) return show(req, res, { problems: [problem], name, status: 422 });
      const live = (await deps.keys.list({ accountId: viewer.id })).filter((k) => isLive(k));
      if (live.length >= MAX_KEYS) return show(req, res, { problems: [`An account may hold at most ${MAX_KEYS} keys.`], status: 422 });
      const fresh = await deps.keys.issue(viewer.plan, name, viewer.id);
      deps.log.info({ accountId: viewer.id, keyId: fresh.record.id }, 'portal: key created');
      await show(req, res, { fresh });
    }),
  );

  r.post(
    '/dashboard/keys/:id/rename',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      const name = posted(req, 'name', 300).trim();
      const problem = nameProblem(name);
      if (problem) return show(req, res, { problems: [problem], status: 422 });
      await deps.keys.rename(rec.id, name);
      res.redirect(303, '/dashboard?done=renamed');
    }),
  );

  r.post(
    '/dashboard/keys/:id/rotate',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      const grace = GRACE[posted(req, 'grace', 10)];
      if (!grace) return show(req, res, { problems: ['Choose how long the old key keeps working.'], status: 422 });
      if (!holdsPersonalKeys(deps, viewerOf(res)) || rec.disabled)
        throw new PageError(409, 'This key is disabled', html`Disabled keys cannot be rotated. <a href="/dashboard">Back to your keys</a>`);
      if (rec.expiresAt)
        throw new PageError(
          409,
          'This key is being replaced',
          html`It was rotated already and stops working ${relative(rec.expiresAt)}. <a href="/dashboard">Back to your keys</a>`,
        );
      const fresh = await deps.keys.rotate(rec.id, grace.ms);
      if (!fresh)
        throw new PageError(409, 'This key cannot be rotated', html`It no longer works. <a href="/dashboard">Back to your keys</a>`);
      deps.log.info({ accountId: rec.accountId, keyId: rec.id, newKeyId: fresh.record.id, graceMs: grace.ms }, 'portal: key rotated');
      await show(req, res, {
        fresh: { ...fresh, replaced: (await deps.keys.get(rec.id)) ?? { ...rec, expiresAt: new Date().toISOString() } },
      });
    }),
  );

  // Revoking asks first, on a page of its own, so the confirmation works without JavaScript.
  r.get(
    '/dashboard/keys/:id/revoke',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      pages.send(
        res,
        'Revoke key',
        html`<h1>Revoke “${rec.name}”?</h1>
<div class="card">
  <p>The key <code>${rec.hint ?? rec.id}</code> stops working at once: every call made with it is refused with 401 from then on. This cannot be undone.</p>
  <form method="post" action="/dashboard/keys/${rec.id}/revoke" class="actions">
    ${csrfField(res.locals.csrf)}
    <button type="submit" class="danger">Revoke this key</button>
    <a class="button secondary" href="/dashboard">Cancel</a>
  </form>
</div>`,
      );
    }),
  );

  r.post(
    '/dashboard/keys/:id/revoke',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      await deps.keys.revoke(rec.id);
      deps.log.info({ accountId: rec.accountId, keyId: rec.id }, 'portal: key revoked');
      res.redirect(303, '/dashboard?done=revoked');
    }),
  );

  return r;
}

const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

function freshCard(f: Fresh): Safe {
  return html`<section class="card fresh" aria-labelledby="fresh-title">
  <h2 id="fresh-title">Your new key “${f.record.name}”</h2>
  <p><strong>Copy it now: it is shown this once only.</strong> The service keeps only a hash of it; afterwards this page shows <code>${f.record.hint ?? ''}</code>.</p>
  <div class="secret"><code id="new-key" data-api-key>${f.key}</code><button type="button" class="small" data-copy="new-key" hidden>Copy</button></div>
  ${
    f.replaced
      ? html`<p>It replaces <code>${f.replaced.hint ?? f.replaced.id}</code>, which ${
          f.replaced.expiresAt && Date.parse(f.replaced.expiresAt) > Date.now()
            ? html`keeps working until ${time(f.replaced.expiresAt)} (${relative(f.replaced.expiresAt)})`
            : 'was revoked at once'
        }.</p>`
      : ''
  }
  <p class="small muted">The API reference's try-it uses it in this browser tab: <a href="/docs">try it now</a>.</p>
</section>`;
}

function statusBadge(k: KeyRecord): Safe {
  if (k.disabled) return html`<span class="badge danger">Disabled</span>`;
  if (k.expiresAt)
    return Date.parse(k.expiresAt) > Date.now()
      ? html`<span class="badge warn">Replaced: works until ${time(k.expiresAt)}</span>`
      : html`<span class="badge danger">Expired</span>`;
  return html`<span class="badge ok">Active</span>`;
}

function keyCard(
  k: KeyRecord,
  use: { at: string; ip: string } | undefined,
  a: Parameters<typeof allowanceFacts>[0],
  csrf: string | undefined,
  isNew: boolean,
): Safe {
  const rotatable = isLive(k) && !k.expiresAt;
  return html`<article class="card key${isNew ? ' new' : ''}" id="key-${k.id}" aria-labelledby="key-${k.id}-name">
  <div class="key-head"><h3 id="key-${k.id}-name">${k.name}</h3>${statusBadge(k)}</div>
  <dl class="facts">
    <div><dt>Key</dt><dd><code>${k.hint ?? k.id}</code></dd></div>
    <div><dt>Created</dt><dd>${time(k.createdAt)}</dd></div>
    <div><dt>Last used</dt><dd>${use ? html`${relative(use.at)} from <code>${use.ip || 'unknown'}</code> <span class="muted small">(${time(use.at)})</span>` : html`<span class="muted">never</span>`}</dd></div>
    ${allowanceFacts(a)}
  </dl>
  <div class="key-actions">
    <details><summary>Rename</summary>
      <form method="post" action="/dashboard/keys/${k.id}/rename" class="row">
        ${csrfField(csrf)}
        <label>New name <input name="name" required maxlength="${NAME_MAX}" value="${k.name}" autocomplete="off"></label>
        <button type="submit" class="secondary">Save name</button>
      </form>
    </details>
    ${
      rotatable
        ? html`<details><summary>Rotate</summary>
      <form method="post" action="/dashboard/keys/${k.id}/rotate" class="row">
        ${csrfField(csrf)}
        <label>The old key keeps working
          <select name="grace">${Object.entries(GRACE).map(([v, g]) => html`<option value="${v}"${v === '1h' ? html` selected` : ''}>${g.label}</option>`)}</select></label>
        <button type="submit" class="secondary">Rotate key</button>
      </form>
      <p class="small muted">A new key replaces this one; you see it once, on the next page.</p>
    </details>`
        : ''
    }
    <a href="/dashboard/usage?key=${k.id}">Usage</a>
    <a href="/dashboard/keys/${k.id}/revoke" class="danger-link">Revoke…</a>
  </div>
</article>`;
}

function snippet(deps: PortalDeps, sharedKey: string | undefined, fresh: string | undefined): Safe {
  const base = deps.config.publicUrl.replace(/\/+$/, '');
  const key = sharedKey ?? fresh;
  return html`<section class="card" aria-labelledby="call-title">
  <h2 id="call-title">Call the API</h2>
  <p>Send the key in the <code>X-API-Key</code> header (or as the <code>apikey</code> parameter):</p>
  <pre class="wrap"><code>${key ? '' : '# the key, as shown once when you made it\nexport UUA_API_KEY=uua_…\n'}curl -H "X-API-Key: ${key ?? '$UUA_API_KEY'}" \\
  "${base}/api/v1/tools/ccgen?bin=457173"</code></pre>
  <p>Every answer carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code>, the figures shown here.
  All endpoints, with samples in JavaScript and Python and a try-it: <a href="/docs">API reference</a>.</p>
</section>`;
}
