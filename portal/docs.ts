// GET /docs (the interactive reference) and GET / for browsers: being written.
import express, { type Router } from 'express';
import type { PortalDeps } from './index.js';

export function docsRoutes(_deps: PortalDeps): Router {
  return express.Router();
}
