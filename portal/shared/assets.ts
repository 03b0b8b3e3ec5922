// The files the pages load: portal/static at /portal/static (its icon at /favicon.ico too), and
// @simplewebauthn/browser (passkeys) at /portal/vendor/simplewebauthn/<version>, from wherever npm put it;
// the version in the URL lets browsers keep it for a year and still see an upgrade at once.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import { assetHeaders } from './security.js';
import { STATIC_DIR } from './static-dir.js';

const requireHere = createRequire(import.meta.url);
const versionOf = (dist: string) =>
  (JSON.parse(fs.readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version;

// @simplewebauthn/browser's bundle (the global SimpleWebAuthnBrowser), for the passkey pages.
// (Its package exports no package.json: the folder is found from its CommonJS entry, script/index.js.)
const webauthnDist = path.join(path.dirname(requireHere.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle');
const WEBAUTHN_URL = `/portal/vendor/simplewebauthn/${versionOf(path.join(webauthnDist, '..'))}/index.umd.min.js`;
/** The scripts of the pages that make or use passkeys: the library's browser part, then the pages' own. */
export const PASSKEY_SCRIPTS = [WEBAUTHN_URL, '/portal/static/passkeys.js'];

export function assetRoutes(): Router {
  const router = express.Router();
  router.use('/portal/static', express.static(STATIC_DIR, { index: false, maxAge: '1h', setHeaders: assetHeaders }));
  // Browsers, feed readers and crawlers ask for /favicon.ico whatever the page links: the same icon, as SVG
  // (which they read by its type, whatever the name).
  router.get('/favicon.ico', (_req, res, next) => {
    assetHeaders(res);
    res.type('image/svg+xml').sendFile(path.join(STATIC_DIR, 'favicon.svg'), { maxAge: '1d' }, (err) => err && next(err));
  });
  router.get(WEBAUTHN_URL, (_req, res, next) => {
    assetHeaders(res);
    res.sendFile(path.join(webauthnDist, 'index.umd.min.js'), { maxAge: '365d', immutable: true }, (err) => err && next(err));
  });
  return router;
}
