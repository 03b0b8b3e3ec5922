// The files the pages load: portal/static at /portal/static, Scalar's browser bundle (the reference) at
// /portal/vendor/scalar/<version> and chart.js (the usage charts) at /portal/vendor/chartjs/<version>,
// both from wherever npm put them; the version in the URL lets browsers keep them for a year and still see
// an upgrade at once.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { assetHeaders } from '../security.js';

// portal/routes/ in the source tree, dist/portal/routes/ once built: static files are read from the source
// tree, which tsc does not copy (as server/config.ts does for catalog/).
const here = path.dirname(fileURLToPath(import.meta.url));
const up = path.resolve(here, '../..');
const root = path.basename(up) === 'dist' ? path.dirname(up) : up;
const STATIC_DIR = path.join(root, 'portal', 'static');

const requireHere = createRequire(import.meta.url);
const versionOf = (dist: string) =>
  (JSON.parse(fs.readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version;

const scalarDist = path.dirname(requireHere.resolve('@scalar/api-reference/style.css'));
export const SCALAR_URL = `/portal/vendor/scalar/${versionOf(scalarDist)}`;

const chartDist = path.dirname(requireHere.resolve('chart.js'));
export const CHART_URL = `/portal/vendor/chartjs/${versionOf(chartDist)}/chart.umd.min.js`;

export function assetRoutes(): Router {
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
  router.get(CHART_URL, (_req, res, next) => {
    assetHeaders(res);
    res.sendFile(path.join(chartDist, 'chart.umd.min.js'), { maxAge: '365d', immutable: true }, (err) => err && next(err));
  });
  return router;
}
