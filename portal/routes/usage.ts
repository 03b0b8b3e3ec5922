// The usage page of one of the viewer's keys (the free key for a free account, counted for its client IP)
// at /dashboard/usage, and its CSV export at /dashboard/usage.csv. The figures come from the engine's usage
// history (engine/access/account-usage.ts keyUsage); views/usage.ts shows them.
import express, { type Request, type Response, type Router } from 'express';
import { keyUsage } from '../../engine/access/account-usage.js';
import type { PortalContext } from '../context.js';
import type { KeyRef, KeyUsage, Viewer } from '../types.js';
import { viewerKeys } from '../accounts/keys.js';
import { PageError, wrap } from '../pages.js';
import { noKeysBody, noSuchKey, usageBody, usageCsv } from '../views/usage.js';
import { CHART_URL } from './assets.js';

export function usageRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  /** The key asked for (`?key=`), among the viewer's own; the first of them when none is asked for. */
  const chosen = async (req: Request, res: Response): Promise<{ refs: KeyRef[]; ref?: KeyRef }> => {
    const refs = await viewerKeys(deps, viewerOf(res));
    const asked = typeof req.query.key === 'string' ? req.query.key : undefined;
    if (asked === undefined) return { refs, ref: refs.find((k) => !k.record || !k.record.disabled) ?? refs[0] };
    const ref = refs.find((k) => k.id === asked);
    if (!ref) throw new PageError(404, 'No such key', noSuchKey());
    return { refs, ref };
  };

  const usageOf = (req: Request, ref: KeyRef) => keyUsage(deps.usage, ref.plan, ref.id, req.ip) as Promise<KeyUsage>;

  r.get(
    '/dashboard/usage',
    wrap(async (req, res) => {
      const { refs, ref } = await chosen(req, res);
      if (!ref) return pages.send(res, 'Usage', noKeysBody());
      const body = usageBody({ refs, ref, ip: req.ip, usage: await usageOf(req, ref) });
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
      res
        .set('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8')
        .attachment(`usage-${ref.id}-${p === 'hour' ? 'hourly' : 'daily'}.csv`)
        .send(usageCsv(p === 'hour' ? u.hourly : u.daily));
    }),
  );

  return r;
}
