// Serves hosted blobs back at stable URLs: /<kind>/<id>. (The cloud-storage work refines this.)
import express from 'express';
import type { HostedBlobs } from './blobs.js';

export function createHostingRouter(blobs: HostedBlobs): express.Router {
  const router = express.Router();
  router.get('/:kind/:id', async (req, res, next) => {
    try {
      const id = req.params.id.replace(/\.[a-z0-9]{1,5}$/i, '');
      const found = await blobs.get(id);
      if (!found || found.meta.kind !== req.params.kind) return next();
      res.type(found.meta.contentType).set('X-Content-Type-Options', 'nosniff').sendFile(found.path);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
