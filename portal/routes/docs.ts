// The front door: GET / for browsers (the landing page; JSON clients fall through to the service
// document) and GET /docs (the interactive reference, Scalar, rendered from /openapi.json in the browser).
// Both show the catalog's endpoints as the composition root loaded them.
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import type { PortalContext } from '../context.js';
import { tryItKey } from '../accounts/keys.js';
import { docsHeaders, pageHeaders } from '../security.js';
import { landingBody } from '../views/landing.js';
import { docsBody } from '../views/docs.js';
import { SCALAR_URL } from './assets.js';

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

  router.get('/docs', ...docsHeaders, (_req: Request, res: Response) => {
    const viewer = res.locals.viewer;
    const anonymousKey = deps.config.anonymousKey;
    const body = docsBody({
      anonymousKey,
      key: tryItKey(deps, viewer) || anonymousKey,
      signedIn: Boolean(viewer),
      publicUrl: deps.config.publicUrl,
      styleNonce: res.locals.styleNonce as string,
    });
    pages.send(res, 'API reference', body, {
      wide: true,
      scripts: ['/portal/static/style-nonce.js', `${SCALAR_URL}/standalone.js`, '/portal/static/docs.js'],
    });
  });

  return router;
}
