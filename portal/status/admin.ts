// /admin/status, for admins: every endpoint a probe can run on here, with its state and last probe, a button
// that probes one now (the probe runs while the admin waits, then the page comes back with its outcome), and
// how probes and alerts are set up (PROBE_INTERVAL, ALERT_WEBHOOK_URL, ALERT_EMAIL).
import express, { type Router } from 'express';
import type { PortalContext } from '../context.js';
import { requireAdmin, requireSignedIn } from '../auth/index.js';
import { PageError, posted, queried, wrap } from '../shared/pages.js';
import { probesBody } from './admin-view.js';

export function statusAdminRoutes(ctx: PortalContext): Router {
  const { health, config, log } = ctx.deps;
  const r = express.Router();
  r.use(requireSignedIn, requireAdmin);

  r.get(
    '/',
    wrap(async (req, res) => {
      await health.monitor.refresh();
      const rows = health.prober.probeable().map((id) => ({ id, judged: health.monitor.judge(id)!, last: health.monitor.lastProbe(id) }));
      const probed = queried(req, 'probed');
      const body = probesBody({
        csrf: res.locals.csrf,
        rows,
        probed: rows.find((r) => r.id === probed),
        intervalMs: config.health.probeIntervalMs,
        only: config.health.probeEndpoints,
        webhook: Boolean(config.health.alertWebhookUrl),
        alertEmail: config.mail ? config.health.alertEmail : undefined,
        failuresToAlert: config.health.alertProbeFailures,
      });
      ctx.pages.send(res, 'Probes · Admin', body, { wide: true });
    }),
  );

  r.post(
    '/probe',
    wrap(async (req, res) => {
      const id = posted(req, 'endpoint', 200);
      const rec = await health.prober.probe(id);
      if (!rec) throw new PageError(404, 'No such probe', 'That endpoint has no upstream to probe here, or is not configured.');
      log.info({ by: res.locals.viewer!.id, endpoint: id, status: rec.status }, 'portal: admin probed an endpoint');
      res.redirect(303, `/admin/status?probed=${encodeURIComponent(id)}`);
    }),
  );

  return r;
}
