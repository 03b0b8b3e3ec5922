// The account's request inspector: /dashboard/requests (its calls across its keys, filtered, searched by
// request id, a page at a time), /dashboard/requests.csv and .json (the filter's export) and
// /dashboard/requests/<requestId> (one call, with Replay in Try it). An account reads its own calls only:
// every read is made with its id as the owner.
import express, { type Request, type Response, type Router } from 'express';
import type { PortalContext } from '../context.js';
import type { Viewer } from '../shared/types.js';
import { viewerKeys } from '../keys/index.js';
import { PageError, wrap } from '../shared/pages.js';
import { askedOf, filterOf, pageOf, sendExport } from './inspect.js';
import { callBody, inspectorBody, nextQuery } from './views.js';
import { replayLink } from './replay.js';
import { loggedCall } from '../../features/request-log/entry.js';
import { retentionDays } from '../../features/request-log/retention.js';

const BASE = '/dashboard/requests';

export function requestRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const records = deps.requestLog;
  const r = express.Router();
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;
  const endpoints = deps.endpoints.map((e) => e.id).sort();

  r.get(
    BASE,
    wrap(async (req: Request, res: Response) => {
      const viewer = viewerOf(res);
      const asked = askedOf(req);
      const filter = filterOf(asked);
      const { calls, last } = await pageOf(records, viewer.id, filter);
      // A request id found once: its page at once.
      if (filter.requestId && calls.length === 1 && !asked.cursor)
        return res.redirect(303, `${BASE}/${encodeURIComponent(calls[0].requestId)}`);
      const keys = (await viewerKeys(deps, viewer)).filter((k) => k.record).map((k) => ({ value: k.id, label: k.label }));
      const days = retentionDays(deps.plans, viewer.plan);
      pages.send(
        res,
        'Request log',
        inspectorBody({
          base: BASE,
          asked,
          keys,
          endpoints,
          calls,
          next: last && nextQuery(asked, last),
          callLink: (c) => `${BASE}/${encodeURIComponent(c.requestId)}`,
          retention: `Your plan keeps them ${days} day${days === 1 ? '' : 's'}.`,
          off: !deps.recordingCalls,
        }),
        { wide: true },
      );
    }),
  );

  for (const kind of ['csv', 'json'] as const)
    r.get(
      `${BASE}.${kind}`,
      wrap(async (req, res) => {
        await sendExport(res, records, viewerOf(res).id, filterOf(askedOf(req)), kind);
      }),
    );

  r.get(
    `${BASE}/:requestId`,
    wrap(async (req, res) => {
      const requestId = String(req.params.requestId);
      const filter = filterOf({ requestId });
      const { rows } = await records.list({ ...filter, owner: viewerOf(res).id, limit: 20 });
      if (!rows.length)
        throw new PageError(404, 'No such call', 'None of your calls has this request id, or it is older than your plan keeps them.');
      const c = loggedCall(rows[0]);
      pages.send(res, `Call ${c.requestId}`, callBody(c, { back: BASE, replay: replayLink(deps.endpoints, c), duplicates: rows.length }));
    }),
  );

  return r;
}
