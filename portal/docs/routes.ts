// The front door: GET / for browsers (the landing page; JSON clients fall through to the service
// document), GET /docs (the reference's overview), GET /docs/changelog (the contract's changes, CHANGELOG.md)
// and GET /docs/<category> (its operations), rendered on the server from the OpenAPI document /openapi.json
// serves (docs/views.ts), and GET /docs/search.json, what their search box looks through (made once, from
// the catalog). A signed-in viewer's Try it offers their own keys; everyone's offers the anonymous key.
import zlib from 'node:zlib';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import type { PortalContext } from '../context.js';
import type { Viewer } from '../shared/types.js';
import { tryItKey } from '../keys/index.js';
import { PageError, wrap } from '../shared/pages.js';
import { assetHeaders, pageHeaders } from '../shared/security.js';
import { SNIPPETS_URL } from '../shared/snippets.js';
import { landingBody } from './landing.js';
import { categoryTitle } from './categories.js';
import { changelogPage } from './changelog.js';
import { searchIndex } from './search-index.js';
import { docsCategory, docsOverview, type DocsPage, type ReferenceDoc, type TryKey } from './views.js';

// The samples' writer first: docs.js writes Try it's request with it.
const SCRIPTS = [SNIPPETS_URL, '/portal/static/docs.js'];

/** `?try=<path>&p.<name>=<value>…`: Replay in Try it from the request log (portal/requests/replay.ts). */
function replayOf(req: Request): { path: string; values: Record<string, string> } | undefined {
  const path = req.query.try;
  if (typeof path !== 'string') return undefined;
  const values: Record<string, string> = {};
  for (const [name, v] of Object.entries(req.query)) if (name.startsWith('p.') && typeof v === 'string') values[name.slice(2)] = v;
  return { path, values };
}

export function docsRoutes(ctx: PortalContext): Router {
  const { deps, pages } = ctx;
  const router = express.Router();

  router.get('/', (req: Request, res: Response, next: NextFunction) => {
    if (req.accepts(['json', 'html']) !== 'html') return next(); // JSON clients keep the service document
    pageHeaders(req, res, () => {
      try {
        const viewer = res.locals.viewer;
        const body = landingBody({ config: deps.config, endpoints: deps.endpoints, plans: deps.plans, signedIn: Boolean(viewer) });
        pages.send(res, 'Home', body, { wide: true });
      } catch (err) {
        next(err);
      }
    });
  });

  /** Try it's keys: the viewer's live personal keys and the shared free key (if theirs), then the anonymous key. */
  const keysOf = async (viewer: Viewer | undefined): Promise<TryKey[]> => {
    const anonymous = { label: 'Anonymous key (shared by everyone)', value: deps.config.anonymousKey };
    if (!viewer) return [anonymous];
    const own = (await deps.keys.ofAccount(viewer.id))
      .filter((k) => !k.disabled && !k.revokedAt)
      .map((k) => ({ label: `Your key “${k.name}” (${k.hint ?? k.id})`, id: k.id, hint: k.hint }));
    const free = tryItKey(deps, viewer);
    return [...own, ...(free ? [{ label: 'Your shared free key', value: free }] : []), anonymous];
  };

  const pageOf = async (res: Response): Promise<DocsPage> => {
    const viewer = res.locals.viewer;
    return {
      doc: deps.openapi() as unknown as ReferenceDoc,
      publicUrl: deps.config.publicUrl,
      anonymousKey: deps.config.anonymousKey,
      signedIn: Boolean(viewer),
      keys: await keysOf(viewer),
    };
  };

  router.get(
    '/docs',
    pageHeaders,
    wrap(async (_req, res) => {
      pages.send(res, 'API reference', docsOverview(await pageOf(res)), { wide: true, scripts: SCRIPTS, compress: true });
    }),
  );

  // Before /docs/:category, which would read it as a category.
  router.get('/docs/changelog', pageHeaders, (_req, res) => {
    pages.send(res, 'API changelog', changelogPage(), { wide: true });
  });

  // The catalog does not change while the server runs: the index is made once, and browsers keep it a while.
  const index = JSON.stringify(searchIndex(deps.endpoints, deps.upstreams));
  const gzipped = zlib.gzipSync(index);
  router.get('/docs/search.json', (req, res) => {
    assetHeaders(res);
    res.set('Cache-Control', 'public, max-age=3600').type('application/json').vary('Accept-Encoding');
    if (req.acceptsEncodings('gzip')) res.set('Content-Encoding', 'gzip').send(gzipped);
    else res.send(index);
  });

  router.get(
    '/docs/:category',
    pageHeaders,
    wrap(async (req, res) => {
      const category = String(req.params.category);
      const body = docsCategory(await pageOf(res), category, replayOf(req));
      if (!body) throw new PageError(404, 'No such category', 'See the list on the API reference page: /docs.');
      pages.send(res, `${categoryTitle(category)} · API reference`, body, { wide: true, scripts: SCRIPTS, compress: true });
    }),
  );

  return router;
}
