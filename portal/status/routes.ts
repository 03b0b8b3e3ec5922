// The public status pages: /status (HTML), /status.json (the same figures for machines, open to any
// origin) and /status/feed.atom (the incidents). No session is needed, and none is shown: the page is the
// same for everyone, so it may be cached for a few seconds.
import express, { type Router } from 'express';
import type { PortalContext } from '../context.js';
import { pageHeaders } from '../shared/security.js';
import { wrap } from '../shared/pages.js';
import { statusBody } from './view.js';
import { incidentsFeed } from './feed.js';

export function statusRoutes(ctx: PortalContext): Router {
  const { health, config } = ctx.deps;
  const r = express.Router();

  r.get(
    '/status',
    pageHeaders,
    wrap(async (_req, res) => {
      const doc = await health.status();
      ctx.pages.send(res, 'Status', statusBody(doc), { wide: true });
    }),
  );

  r.get(
    '/status.json',
    wrap(async (_req, res) => {
      res.set({ 'Cache-Control': 'public, max-age=10', 'Access-Control-Allow-Origin': '*' }).json(await health.status());
    }),
  );

  r.get(
    '/status/feed.atom',
    wrap(async (_req, res) => {
      const xml = incidentsFeed(await health.status(), { serviceName: config.serviceName, publicUrl: config.publicUrl });
      res.set({ 'Cache-Control': 'public, max-age=60', 'Content-Type': 'application/atom+xml; charset=utf-8' }).send(xml);
    }),
  );

  return r;
}
