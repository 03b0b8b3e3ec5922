// Hosted blobs (files, images, pastes, generated media) on disk under DATA_DIR/blobs, each with a JSON
// metadata file beside it, so nothing is lost on restart. Expired blobs are swept.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { BlobMeta, BlobStore } from './types.js';

export interface HostedBlobs extends BlobStore {
  /** Removes expired blobs; returns how many. */
  sweep(): Promise<number>;
  close(): void;
}

const ID = /^[A-Za-z0-9_-]{6,32}$/;

export function createBlobStore(dataDir: string, publicUrl: string, log: Logger, sweepEveryMs = 60_000): HostedBlobs {
  const dir = path.join(dataDir, 'blobs');
  fs.mkdirSync(dir, { recursive: true });
  const file = (id: string) => path.join(dir, id);
  const metaFile = (id: string) => path.join(dir, `${id}.json`);

  async function readMeta(id: string): Promise<BlobMeta | undefined> {
    if (!ID.test(id)) return undefined;
    try {
      return JSON.parse(await fsp.readFile(metaFile(id), 'utf8')) as BlobMeta;
    } catch {
      return undefined;
    }
  }

  const expired = (m: BlobMeta) => m.expiresAt !== null && Date.parse(m.expiresAt) <= Date.now();

  async function remove(id: string) {
    await fsp.rm(file(id), { force: true });
    await fsp.rm(metaFile(id), { force: true });
  }

  const store: HostedBlobs = {
    async put({ bytes, fromPath, kind, contentType, ttlSeconds, extra }) {
      const id = crypto.randomBytes(6).toString('base64url');
      if (fromPath) {
        try {
          await fsp.rename(fromPath, file(id));
        } catch {
          await fsp.copyFile(fromPath, file(id)); // another filesystem
        }
      } else {
        await fsp.writeFile(file(id), bytes ?? Buffer.alloc(0));
      }
      const size = (await fsp.stat(file(id))).size;
      const now = Date.now();
      const meta: BlobMeta = {
        ...extra,
        id,
        kind,
        contentType,
        size,
        createdAt: new Date(now).toISOString(),
        expiresAt: ttlSeconds ? new Date(now + ttlSeconds * 1000).toISOString() : null,
      };
      // Metadata last, written atomically: a blob without metadata is never served.
      const tmp = `${metaFile(id)}.tmp`;
      await fsp.writeFile(tmp, JSON.stringify(meta));
      await fsp.rename(tmp, metaFile(id));
      return meta;
    },
    async get(id) {
      const meta = await readMeta(id);
      if (!meta) return undefined;
      if (expired(meta)) {
        await remove(id);
        return undefined;
      }
      return { meta, path: file(id) };
    },
    url(meta, suffix = '') {
      return `${publicUrl}/${meta.kind}/${meta.id}${suffix}`;
    },
    async sweep() {
      let n = 0;
      for (const name of await fsp.readdir(dir)) {
        if (!name.endsWith('.json')) continue;
        const meta = await readMeta(name.slice(0, -5));
        if (meta && expired(meta)) {
          await remove(meta.id);
          n++;
        }
      }
      if (n) log.info({ removed: n }, 'blob sweep');
      return n;
    },
    close() {
      clearInterval(timer);
    },
  };
  const timer = setInterval(() => store.sweep().catch((err) => log.warn({ err }, 'blob sweep failed')), sweepEveryMs);
  timer.unref();
  return store;
}
