// The front door: GET / for browsers (the landing page; JSON clients fall through to the service
// document), GET /docs (the interactive reference, Scalar, rendered from /openapi.json in the browser), and
// the files they need: portal/static at /portal/static, Scalar's browser bundle at /portal/vendor/scalar/<version>.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { loadCatalog, type EndpointSpec } from '../engine/catalog/load.js';
import type { PortalDeps } from './index.js';
import { html, type Safe } from '../engine/html.js';
import { page, type Viewer } from './layout.js';
import { landingBody } from './landing.js';
import { assetHeaders, docsHeaders, pageHeaders } from './security.js';

/** What the docs pages may use beyond PortalDeps; each is optional until the portal provides it. */
export interface DocsDeps extends PortalDeps {
  /** The key the signed-in viewer may try the API with (else the anonymous key is shown). */
  viewerKey?(req: Request): Promise<string | undefined> | string | undefined;
  /** The catalog's endpoints (else read from config.catalogDir on the first landing page). */
  endpoints?: EndpointSpec[];
}

// portal/ in the source tree, dist/portal/ once built: static files are read from the source tree, which
// tsc does not copy (as server/config.ts does for catalog/).
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, path.basename(path.dirname(here)) === 'dist' ? '../..' : '..');
export const STATIC_DIR = path.join(root, 'portal', 'static');

// Scalar's files come from node_modules wherever npm put them; the version in the URL lets browsers keep
// them for a year and still see an upgrade at once.
const scalarDist = path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference/style.css'));
const scalarVersion = (JSON.parse(fs.readFileSync(path.join(scalarDist, '..', 'package.json'), 'utf8')) as { version: string }).version;
export const SCALAR_URL = `/portal/vendor/scalar/${scalarVersion}`;

export function docsRoutes(deps: DocsDeps): Router {
  const router = express.Router();
  router.use('/portal/static', express.static(STATIC_DIR, { index: false, maxAge: '1h', setHeaders: assetHeaders }));
  // The bundle is 4 MB and express.static does not compress: gzipped once (1.2 MB), on first demand, and kept.
  let gzipped: Promise<Buffer> | undefined;
  router.get(`${SCALAR_URL}/standalone.js`, (req: Request, res: Response, next: NextFunction) => {
    if (!req.acceptsEncodings('gzip')) return next();
    gzipped ??= promisify(zlib.gzip)(fs.readFileSync(path.join(scalarDist, 'browser', 'standalone.js')), { level: 9 });
    gzipped.then((body) => {
      res.set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'Content-Encoding': 'gzip',
        Vary: 'Accept-Encoding',
        'Cache-Control': 'public, max-age=31536000, immutable',
      });
      assetHeaders(res);
      res.send(body);
    }, next);
  });
  router.use(
    SCALAR_URL,
    express.static(path.join(scalarDist, 'browser'), {
      index: false,
      maxAge: '365d',
      immutable: true,
      setHeaders: (res) => {
        assetHeaders(res);
        res.setHeader('Vary', 'Accept-Encoding');
      },
    }),
  );

  const viewerOf = async (req: Request, res: Response) => res.locals.viewer ?? (await deps.viewerOf(req));
  const send = (res: Response, viewer: Viewer | undefined, title: string, body: Safe, scripts?: string[]) => {
    res.type('html').set('Cache-Control', 'no-store');
    res.send(page({ title, serviceName: deps.config.serviceName, viewer, csrf: res.locals.csrf, wide: true, scripts, body }).value);
  };

  let endpoints = deps.endpoints;
  router.get('/', (req: Request, res: Response, next: NextFunction) => {
    if (req.accepts(['json', 'html']) !== 'html') return next(); // JSON clients keep the service document
    pageHeaders(req, res, async () => {
      try {
        endpoints ??= loadCatalog(deps.config.catalogDir).endpoints;
        const viewer = await viewerOf(req, res);
        send(res, viewer, 'Home', landingBody({ config: deps.config, endpoints, plans: deps.plans, signedIn: Boolean(viewer) }));
      } catch (err) {
        next(err);
      }
    });
  });

  router.get('/docs', ...docsHeaders, (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const viewer = await viewerOf(req, res);
      const anonymous = deps.config.anonymousKey;
      const key = (await deps.viewerKey?.(req)) || anonymous;
      // The key and the spec's address reach the client script as data- attributes (no inline script).
      // The nonce attribute is hidden from the DOM by the browser; style-nonce.js reads it as a property.
      const body = html`<section class="docs-intro">
  <h1>API reference</h1>
  <p>Every endpoint of the service, grouped by category, with code samples and a <strong>Test Request</strong>
  button that calls this server for real. Try it with the anonymous key: <code class="key">${anonymous}</code>${
    key !== anonymous
      ? html` (your own key is filled in)`
      : viewer
        ? html` (filled in for you; your keys are on the <a href="/dashboard">API key page</a>)`
        : html` (filled in for you; <a href="/signup">sign up</a> for a key of your own)`
  }.</p>
  <p>AI agents: every endpoint is also a tool of the MCP server at <code>${deps.config.publicUrl}/mcp</code>
  (Streamable HTTP), with the same key in the <code>X-API-Key</code> header; see
  <a href="#mcp-config">the client configuration</a>.</p>
  <details id="mcp-config"><summary>MCP client configuration</summary>
  <pre><code>${mcpConfig(deps.config.publicUrl)}</code></pre></details>
  <p class="small muted" id="key-note" hidden></p>
  <noscript><p class="notice info">The interactive reference needs JavaScript. The raw OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</section>
<div id="reference" nonce="${res.locals.styleNonce}" data-document="/openapi.json" data-default-key="${key}" data-anonymous-key="${anonymous}"></div>`;
      send(res, viewer, 'API reference', body, ['/portal/static/style-nonce.js', `${SCALAR_URL}/standalone.js`, '/portal/static/docs.js']);
    })().catch(next);
  });

  return router;
}

/** What an MCP client needs (README, "AI agents (MCP)"): the URL and the key header. */
function mcpConfig(publicUrl: string): string {
  const server = { type: 'http', url: `${publicUrl}/mcp`, headers: { 'X-API-Key': 'YOUR_KEY' } };
  return JSON.stringify({ mcpServers: { 'unified-utility-api': server } }, null, 2);
}
