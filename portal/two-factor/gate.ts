// ADMIN_2FA=required: an admin whose account has no second factor is sent to set one up before any admin
// page opens (the account's own pages stay open, so the setup can be done).
import type { RequestHandler } from 'express';
import type { PortalContext } from '../context.js';

export function adminFactorGate(ctx: PortalContext): RequestHandler {
  return (_req, res, next) => {
    const viewer = res.locals.viewer;
    if (ctx.deps.config.adminTwoFactor !== 'required' || viewer?.role !== 'admin') return next();
    ctx.factors.has(viewer.id).then((has) => (has ? next() : res.redirect(303, '/account/two-factor')), next);
  };
}
