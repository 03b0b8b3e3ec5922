// The signed-in account's webhook (portal/webhooks/): GET /dashboard/webhooks shows it; POSTs set it
// (URL and events), roll its secret, send a test event and remove it, each answered with a redirect back
// to the page (a refused form comes back as a 422 page with what was typed). Free and paid accounts alike.
import express, { type Request, type Response, type Router } from 'express';
import { ACCOUNT_EVENT_TYPES, type AccountEventType } from '../../engine/access/account-events.js';
import type { PortalContext } from '../context.js';
import type { Viewer } from '../shared/types.js';
import { PageError, posted, wrap } from '../shared/pages.js';
import { chosenEvents, endpointUrl, URL_MAX } from './settings.js';
import { secretText } from './signing.js';
import { webhookRefusals, webhooksBody, type WebhooksPage } from './views.js';

const PAGE = '/dashboard/webhooks';

export function webhookRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const { settings, deliveries } = ctx.webhooks;
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;

  const show = async (
    req: Request,
    res: Response,
    o: Pick<WebhooksPage, 'problems'> & { form?: WebhooksPage['form']; status?: number } = {},
  ) => {
    const id = viewerOf(res).id;
    const saved = await settings.get(id);
    const previousUntil = saved?.previous && Date.parse(saved.previous.until) > Date.now() ? saved.previous.until : undefined;
    const body = webhooksBody({
      csrf: res.locals.csrf,
      done: typeof req.query.done === 'string' ? req.query.done : undefined,
      problems: o.problems,
      form: o.form ?? { url: saved?.url ?? '', events: saved?.events ?? ACCOUNT_EVENT_TYPES },
      saved: saved && { secret: secretText(saved.secret), previousUntil, stopped: saved.stopped },
      deliveries: await deliveries.recent(id),
      retryDelaysMs: deps.config.webhooks.retryDelaysMs,
    });
    pages.send(res, 'Webhooks', body, { status: o.status, scripts: ['/portal/static/dashboard.js'] });
  };

  /** The viewer's webhook, or a 409 page for an action that needs one. */
  const savedOf = async (res: Response) => {
    const saved = await settings.get(viewerOf(res).id);
    if (!saved) throw new PageError(409, 'No webhook yet', webhookRefusals.none());
    return saved;
  };

  r.get(
    PAGE,
    wrap((req, res) => show(req, res)),
  );

  r.post(
    PAGE,
    wrap(async (req, res) => {
      const id = viewerOf(res).id;
      const typed = posted(req, 'url', URL_MAX + 1);
      const url = endpointUrl(typed, deps.config.allowPrivateFetch);
      const sent: unknown = (req.body as Record<string, unknown> | undefined)?.events;
      const events = chosenEvents(sent);
      const problems = ['problem' in url ? url.problem : '', 'problem' in events ? events.problem : ''].filter(Boolean);
      if ('problem' in url || 'problem' in events) {
        const kept = ([] as unknown[])
          .concat(sent ?? [])
          .filter((t): t is AccountEventType => ACCOUNT_EVENT_TYPES.includes(t as AccountEventType));
        return show(req, res, { form: { url: typed, events: kept }, problems, status: 422 });
      }
      const existed = await settings.get(id);
      await settings.save(id, { url: url.url, events: events.events });
      deps.log.info({ accountId: id, events: events.events }, `portal: webhook ${existed ? 'saved' : 'set'}`);
      res.redirect(303, `${PAGE}?done=${existed ? 'saved' : 'created'}`);
    }),
  );

  r.post(
    `${PAGE}/secret`,
    wrap(async (req, res) => {
      await savedOf(res);
      await settings.roll(viewerOf(res).id);
      deps.log.info({ accountId: viewerOf(res).id }, 'portal: webhook secret rolled');
      res.redirect(303, `${PAGE}?done=rolled`);
    }),
  );

  r.post(
    `${PAGE}/test`,
    wrap(async (req, res) => {
      const saved = await savedOf(res);
      if (saved.stopped) throw new PageError(409, 'Deliveries are stopped', webhookRefusals.stopped());
      const queued = await deliveries.sendTest(viewerOf(res).id);
      res.redirect(303, `${PAGE}?done=${queued === 'queued' ? 'test' : queued}`);
    }),
  );

  r.post(
    `${PAGE}/remove`,
    wrap(async (req, res) => {
      await settings.remove(viewerOf(res).id);
      deps.log.info({ accountId: viewerOf(res).id }, 'portal: webhook removed');
      res.redirect(303, `${PAGE}?done=removed`);
    }),
  );

  return r;
}
