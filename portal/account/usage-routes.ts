// The usage page at /dashboard/usage, and its CSV export at /dashboard/usage.csv: of all the account's
// keys together (revoked ones included), or of one of them, or of the free key for a free account
// (counted for the client IP). The figures come from the engine's usage
// history (features/usage/account-usage.ts keyUsage); account/usage-views.ts shows them.
import express, { type Request, type Response, type Router } from 'express';
import { keyUsage } from '../../features/usage/account-usage.js';
import type { PortalContext } from '../context.js';
import type { KeyRef, KeyUsage, Viewer } from '../shared/types.js';
import { subjectOf, viewerKeys } from '../keys/index.js';
import { PageError, wrap } from '../shared/pages.js';
import { noKeysBody, noSuchKey, usageBody, usageCsv } from './usage-views.js';

/** `?key=` of every key of the account together. */
const ALL = 'all';

export function usageRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  /**
   * The keys the viewer may pick from: every key of the account together first (when it holds personal
   * keys), its keys, its revoked keys; `?key=` picks one, the first is shown when none is asked for.
   */
  const chosen = async (req: Request, res: Response): Promise<{ refs: KeyRef[]; ref?: KeyRef; of: KeyRef[] }> => {
    const viewer = viewerOf(res);
    const keys = await viewerKeys(deps, viewer);
    const own = keys.filter((k) => k.record);
    const all: KeyRef[] = own.length ? [{ id: ALL, plan: viewer.plan, label: 'All keys of your account (revoked ones included)' }] : [];
    const refs = [...all, ...keys];
    const asked = typeof req.query.key === 'string' ? req.query.key : undefined;
    const ref = asked === undefined ? (refs.find((k) => !k.record || !k.record.disabled) ?? refs[0]) : refs.find((k) => k.id === asked);
    if (!ref && asked !== undefined) throw new PageError(404, 'No such key', noSuchKey());
    return { refs, ref, of: own };
  };

  /** The figures of one key, or of every key of the account (`of`) on the account's allowance. */
  const usageOf = (req: Request, res: Response, ref: KeyRef, of: KeyRef[]) =>
    (ref.id === ALL
      ? keyUsage(
          deps.usage,
          ref.plan,
          { keyId: ALL, accountId: viewerOf(res).id },
          req.ip,
          undefined,
          of.map((k) => ({ plan: k.plan, keyId: k.id })),
        )
      : keyUsage(deps.usage, ref.plan, subjectOf(ref), req.ip)) as Promise<KeyUsage>;

  r.get(
    '/dashboard/usage',
    wrap(async (req, res) => {
      const { refs, ref, of } = await chosen(req, res);
      if (!ref) return pages.send(res, 'Usage', noKeysBody());
      const body = usageBody({ refs, ref, ip: req.ip, usage: await usageOf(req, res, ref, of) });
      pages.send(res, 'Usage', body, { scripts: ['/portal/static/dashboard.js'] });
    }),
  );

  r.get(
    '/dashboard/usage.csv',
    wrap(async (req, res) => {
      const { ref, of } = await chosen(req, res);
      const p = req.query.period === 'day' ? 'day' : req.query.period === 'hour' || req.query.period === undefined ? 'hour' : undefined;
      if (!ref || !p) throw new PageError(400, 'Bad request', 'Ask for a key of yours and period=hour or period=day.');
      const u = await usageOf(req, res, ref, of);
      res
        .set('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8')
        .attachment(`usage-${ref.id}-${p === 'hour' ? 'hourly' : 'daily'}.csv`)
        .send(usageCsv(p === 'hour' ? u.hourly : u.daily));
    }),
  );

  return r;
}
