// The operators' request inspector, /admin/requests: every account's calls (and those of shared keys),
// filtered by account (its email or id) and the rest, searched by request id across all of them (a
// request id from a user's support mail is one search), exported, and one call's page by its row id.
import express, { type Request, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { requireAdmin, requireSignedIn } from '../auth/index.js';
import { PageError, wrap } from '../shared/pages.js';
import { askedOf, filterOf, pageOf, sendExport } from './inspect.js';
import { callBody, inspectorBody, nextQuery } from './views.js';
import { replayLink } from './replay.js';
import { loggedCall } from '../../features/request-log/entry.js';

const BASE = '/admin/requests';

export function adminRequestRoutes(ctx: PortalContext): Router {
  const { deps, pages, accounts } = ctx;
  const records = deps.requestLog;
  const r = express.Router();
  // Mounted on /admin (portal/index.ts): every path below it is an admin's.
  r.use(requireSignedIn, requireAdmin);
  const endpoints = deps.endpoints.map((e) => e.id).sort();

  /** The owner asked for: an account by email or id, or `key:<id>`; undefined for every call. */
  const ownerOf = async (asked: Record<string, string>): Promise<string | undefined> => {
    const a = asked.account;
    if (!a) return undefined;
    if (a.startsWith('key:')) return a;
    const account = a.includes('@') ? await accounts.byEmail(a) : await accounts.get(a);
    if (!account) throw new PageError(404, 'No such account', `No account is ${a}.`);
    return account.id;
  };

  const query = async (req: Request) => {
    const asked = askedOf(req);
    return { asked, owner: await ownerOf(asked), filter: filterOf(asked) };
  };

  r.get(
    '/requests',
    wrap(async (req, res) => {
      const { asked, owner, filter } = await query(req);
      const { calls, owners, last } = await pageOf(records, owner, filter);
      if (filter.requestId && calls.length === 1 && !asked.cursor) return res.redirect(303, `${BASE}/${calls[0].id}`);
      pages.send(
        res,
        'Requests',
        inspectorBody(
          {
            base: BASE,
            off: !deps.recordingCalls,
            asked,
            keys: [],
            endpoints,
            calls,
            next: last && nextQuery(asked, last),
            callLink: (c) => `${BASE}/${c.id}`,
            accountOf: (c) => owners.get(c.id) ?? 'shared key',
          },
          true,
        ),
        { wide: true },
      );
    }),
  );

  for (const kind of ['csv', 'json'] as const)
    r.get(
      `/requests.${kind}`,
      wrap(async (req, res) => {
        const { owner, filter } = await query(req);
        await sendExport(res, records, owner, filter, kind);
      }),
    );

  r.get(
    '/requests/:id',
    wrap(async (req, res) => {
      const row = await records.byId(String(req.params.id));
      if (!row) throw new PageError(404, 'No such call', 'It may be older than its plan keeps calls.');
      const c = loggedCall(row);
      pages.send(
        res,
        `Call ${c.requestId}`,
        callBody(c, { back: BASE, replay: replayLink(deps.endpoints, c), account: row.owner ?? 'shared key', duplicates: 1 }),
      );
    }),
  );

  return r;
}
