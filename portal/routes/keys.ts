// The API key page (spec §2.3): a Free account sees the shared free key and its allowance for its client
// IP; a Premium or Enterprise account creates, renames, rotates (with a grace period for the old key) and
// revokes personal keys. A new key is shown once, in the answer to the POST that made it (never in a URL
// or a redirect), and only its hint afterwards. Every action looks the key up within the signed-in
// account: another account's key id is answered as if it did not exist.
import express, { type Request, type Response, type Router } from 'express';
import { isLive, type KeyRecord } from '../../engine/access/keystore.js';
import type { PortalContext } from '../context.js';
import type { Viewer } from '../types.js';
import { allowanceOf, freeRef, GRACE, holdsPersonalKeys, keyNameProblem, MAX_KEYS, personalRef } from '../accounts/keys.js';
import { PageError, posted, wrap } from '../pages.js';
import { keyRefusals, keysBody, revokeBody, type FreshKey, type KeysPage } from '../views/keys.js';

const ID_SHAPE = /^[0-9a-f]{12}$/;

export function keyRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  /** The viewer's own key with this id, or a 404 page (whoever else holds it). */
  const ownKey = async (req: Request, res: Response): Promise<KeyRecord> => {
    const id = String(req.params.id);
    const rec = ID_SHAPE.test(id) ? await deps.keys.get(id) : undefined;
    if (!rec || rec.accountId !== viewerOf(res).id) throw new PageError(404, 'No such key', keyRefusals.noSuchKey());
    return rec;
  };

  const show = async (
    req: Request,
    res: Response,
    o: Pick<KeysPage, 'fresh' | 'problems' | 'name'> & { status?: number } = {},
  ): Promise<void> => {
    const viewer = viewerOf(res);
    const paid = holdsPersonalKeys(deps, viewer);
    const own = (await deps.keys.list({ accountId: viewer.id })).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const used = await deps.keys.lastUsed(own.map((k) => k.id));
    const allowances = await Promise.all(own.map((k) => allowanceOf(deps, personalRef(k), req.ip)));
    const plan = deps.plans[viewer.plan];
    const free = deps.plans.free;
    const body = keysBody({
      ...o,
      csrf: res.locals.csrf,
      done: typeof req.query.done === 'string' ? req.query.done : undefined,
      paid,
      plan: paid ? { id: viewer.plan, limit: plan.limit, window: plan.window } : undefined,
      keys: own.map((record, i) => ({ record, lastUse: used.get(record.id), allowance: allowances[i] })),
      free: paid
        ? undefined
        : {
            key: deps.config.freeKey,
            limit: free.limit,
            window: free.window,
            ip: req.ip,
            allowance: await allowanceOf(deps, freeRef(), req.ip),
            premiumLimit: deps.plans.premium?.limit ?? 0,
            enterpriseLimit: deps.plans.enterprise?.limit ?? 0,
          },
      publicUrl: deps.config.publicUrl,
    });
    pages.send(res, 'API keys', body, { status: o.status, scripts: ['/portal/static/dashboard.js'] });
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
      if (!holdsPersonalKeys(deps, viewer)) throw new PageError(403, 'Personal keys need a paid plan', keyRefusals.needsPaidPlan());
      const name = posted(req, 'name', 300).trim();
      const problem = keyNameProblem(name);
      if (problem) return show(req, res, { problems: [problem], name, status: 422 });
      const live = (await deps.keys.list({ accountId: viewer.id })).filter((k) => isLive(k));
      if (live.length >= MAX_KEYS) return show(req, res, { problems: [`An account may hold at most ${MAX_KEYS} keys.`], status: 422 });
      const fresh: FreshKey = await deps.keys.issue(viewer.plan, name, viewer.id);
      deps.log.info({ accountId: viewer.id, keyId: fresh.record.id }, 'portal: key created');
      await show(req, res, { fresh });
    }),
  );

  r.post(
    '/dashboard/keys/:id/rename',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      const name = posted(req, 'name', 300).trim();
      const problem = keyNameProblem(name);
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
      if (!holdsPersonalKeys(deps, viewerOf(res)) || rec.disabled) throw new PageError(409, 'This key is disabled', keyRefusals.disabled());
      if (rec.expiresAt) throw new PageError(409, 'This key is being replaced', keyRefusals.beingReplaced(rec.expiresAt));
      const fresh = await deps.keys.rotate(rec.id, grace.ms);
      if (!fresh) throw new PageError(409, 'This key cannot be rotated', keyRefusals.cannotRotate());
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
      const record = await ownKey(req, res);
      pages.send(res, 'Revoke key', revokeBody({ record, csrf: res.locals.csrf }));
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
