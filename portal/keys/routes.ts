// The API key page (spec §2.3): a Free account sees the shared free key and its allowance for its client
// IP (or, with FREE_PERSONAL_KEYS, holds one personal key); a Premium or Enterprise account creates,
// renames, rotates (with a grace period for the old key) and revokes personal keys. Creating and rotating
// answer with a redirect (post/redirect/get): the new key is held for the page after it and shown there
// once (keys/fresh-keys.ts; never in a URL), so a reload neither makes a key nor shows one; only its
// hint afterwards. Every action looks the key up within the signed-in account: another account's key id
// is answered as if it did not exist.
import express, { type Request, type Response, type Router } from 'express';
import { isLive, type KeyRecord } from '../../engine/access/keystore.js';
import type { PortalContext } from '../context.js';
import type { Viewer } from '../shared/types.js';
import {
  addressNote,
  accountAllowanceOf,
  allowanceOf,
  freeRef,
  GRACE,
  holdsPersonalKeys,
  keyLimits,
  keyNameProblem,
  keyUseOf,
  maxKeysOf,
  viewerKeyPlan,
} from './keys.js';
import { higherPlans } from '../accounts/upgrades.js';
import type { HeldKey } from './fresh-keys.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { keyRefusals, keysBody, revokeBody, type FreshKey, type KeysPage } from './views.js';
import { billingFor } from '../billing/index.js';

const ID_SHAPE = /^[0-9a-f]{12}$/;

export function keyRoutes(ctx: PortalContext): Router {
  const { deps, pages, freshKeys, upgrades } = ctx;
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
    o: Pick<KeysPage, 'fresh' | 'shownAlready' | 'problems' | 'name'> & { status?: number } = {},
  ): Promise<void> => {
    const viewer = viewerOf(res);
    const personal = holdsPersonalKeys(deps, viewer);
    const own = (await deps.keys.ofAccount(viewer.id)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const used = await deps.keys.lastUsed(own.map((k) => k.id));
    const uses = await Promise.all(own.map((k) => keyUseOf(deps, k)));
    const plan = deps.plans[viewerKeyPlan(deps, viewer)];
    const free = deps.plans.free;
    const request = await upgrades.of(viewer.id);
    const lastUse = (id: string) => {
      const use = used.get(id);
      return use && { ...use, note: addressNote(use.ip, deps.config.trustProxy) };
    };
    const body = keysBody({
      ...o,
      csrf: res.locals.csrf,
      done: typeof req.query.done === 'string' ? req.query.done : undefined,
      personal,
      plan: personal ? { id: viewer.plan, limit: plan.limit, window: plan.window } : undefined,
      allowance: personal ? await accountAllowanceOf(deps, viewerKeyPlan(deps, viewer), viewer.id) : undefined,
      maxKeys: maxKeysOf(viewer),
      keys: own.map((record, i) => ({ record, lastUse: lastUse(record.id), use: uses[i] })),
      billing: ctx.billing && (await billingFor(ctx.billing, ctx, res.locals.account!, res.locals.csrf)),
      upgrade: {
        // Plans sold through Stripe are in the billing section; the line points at the request form for the others.
        possible: higherPlans(res.locals.account!.plan).some((p) => !ctx.billing?.sold.includes(p as 'premium')),
        pending: request?.status === 'pending' ? request.to : undefined,
      },
      free: personal
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

  /** The new key held for this page (`?new=`), once: its record must still be there. */
  const freshOf = async (req: Request, res: Response): Promise<Pick<KeysPage, 'fresh' | 'shownAlready'>> => {
    if (req.query.new === undefined) return {};
    const held = await freshKeys.take(req.query.new, viewerOf(res).id);
    const record = held && (await deps.keys.get(held.recordId));
    return record ? { fresh: { key: held.key, record, replaced: held.replaced } } : { shownAlready: true };
  };

  /** Holds a new key for the page after the redirect, and redirects there. */
  const showOnce = async (res: Response, fresh: FreshKey) => {
    const held: HeldKey = { key: fresh.key, recordId: fresh.record.id, ...(fresh.replaced ? { replaced: fresh.replaced } : {}) };
    const ticket = await freshKeys.hold(viewerOf(res).id, held);
    res.redirect(303, `/dashboard?new=${ticket}`);
  };

  r.get(
    '/dashboard',
    wrap(async (req, res) => show(req, res, await freshOf(req, res))),
  );
  // The form's own address asked for with a GET (a bookmark, an old reload): the key page.
  r.get('/dashboard/keys', (_req, res) => res.redirect(303, '/dashboard'));

  r.post(
    '/dashboard/keys',
    wrap(async (req, res) => {
      const viewer = viewerOf(res);
      if (!holdsPersonalKeys(deps, viewer)) throw new PageError(403, 'Personal keys need a paid plan', keyRefusals.needsPaidPlan());
      const name = posted(req, 'name', 300).trim();
      const problem = keyNameProblem(name);
      if (problem) return show(req, res, { problems: [problem], name, status: 422 });
      const live = (await deps.keys.ofAccount(viewer.id)).filter((k) => isLive(k));
      const max = maxKeysOf(viewer);
      if (live.length >= max)
        return show(req, res, {
          problems: [max === 1 ? 'Your account holds its one key already.' : `An account may hold at most ${max} keys.`],
          status: 422,
        });
      const fresh: FreshKey = await deps.keys.issue(viewerKeyPlan(deps, viewer), name, viewer.id);
      deps.log.info({ accountId: viewer.id, keyId: fresh.record.id }, 'portal: key created');
      await showOnce(res, fresh);
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
      if (rec.replacedBy !== undefined && rec.expiresAt)
        throw new PageError(409, 'This key is being replaced', keyRefusals.beingReplaced(rec.expiresAt));
      const fresh = await deps.keys.rotate(rec.id, grace.ms);
      if (!fresh) throw new PageError(409, 'This key cannot be rotated', keyRefusals.cannotRotate());
      deps.log.info({ accountId: rec.accountId, keyId: rec.id, newKeyId: fresh.record.id, graceMs: grace.ms }, 'portal: key rotated');
      const old = await deps.keys.get(rec.id); // gone when rotated without grace
      await showOnce(res, { ...fresh, replaced: { hint: rec.hint ?? rec.id, ...(old?.expiresAt ? { expiresAt: old.expiresAt } : {}) } });
    }),
  );

  r.post(
    '/dashboard/keys/:id/limits',
    wrap(async (req, res) => {
      const rec = await ownKey(req, res);
      const plan = deps.plans[rec.plan];
      if (!plan || !isLive(rec) || rec.replacedBy !== undefined)
        throw new PageError(409, 'This key cannot be changed', keyRefusals.cannotLimit());
      const read = keyLimits(posted(req, 'cap', 20), posted(req, 'expires', 20), plan.limit);
      if ('problems' in read) return show(req, res, { problems: read.problems, status: 422 });
      await deps.keys.setLimits(rec.id, read.limits);
      deps.log.info(
        { accountId: rec.accountId, keyId: rec.id, cap: read.limits.cap, expiresAt: read.limits.expiresAt },
        'portal: key limits set',
      );
      res.redirect(303, `/dashboard?done=limits#key-${rec.id}`);
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
