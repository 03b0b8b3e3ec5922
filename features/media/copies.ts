// MEDIA_STORE=on: the first whole download of a media link keeps a copy in the blob store (features/hosting/,
// on disk or in the bucket) until the link expires, when the hosting sweeper deletes it; later requests
// for that media are sent to the copy. Off by default: the bytes pass through and nothing is kept
// (docs/decisions/media-links.md says why). Each instance knows the copies it made.
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { BlobStore } from '../../engine/blob-store.js';

export interface CopySink {
  /** Where the bytes go as they stream (written by relay.ts, at the pace of the slower of this and the caller). */
  readonly out: Writable;
  /** The whole file arrived: store it until `untilSec` (epoch seconds). */
  commit(): Promise<void>;
  drop(): void;
}

export interface MediaCopies {
  /** The URL of this media's copy, when one is kept. */
  find(source: string): Promise<string | undefined>;
  /** Where the bytes of a whole download go as they stream. */
  start(source: string, contentType: string, extension: string, untilSec: number): CopySink;
}

export function mediaCopies(blobs: BlobStore, dir: string, log: Logger): MediaCopies {
  const kept = new LRUCache<string, { id: string; ext: string }>({ max: 10_000 });
  // A download being kept: a request for the same media waits for it rather than download it again.
  const keeping = new Map<string, Promise<void>>();
  fs.mkdirSync(dir, { recursive: true });
  return {
    async find(source) {
      await keeping.get(source);
      const copy = kept.get(source);
      if (!copy) return undefined;
      const found = await blobs.get(copy.id);
      if (!found) {
        kept.delete(source);
        return undefined;
      }
      return blobs.url(found.meta, `.${copy.ext}`);
    },
    start(source, contentType, ext, untilSec) {
      const file = path.join(dir, `media-${randomUUID()}`);
      const out = fs.createWriteStream(file);
      let failed = false;
      out.on('error', () => {
        failed = true;
      });
      let done!: () => void;
      const settled = new Promise<void>((resolve) => (done = resolve));
      if (!keeping.has(source)) keeping.set(source, settled);
      const finish = () => {
        if (keeping.get(source) === settled) keeping.delete(source);
        done();
      };
      const drop = () => {
        out.destroy();
        fs.rm(file, { force: true }, () => {});
        finish();
      };
      return {
        out,
        drop,
        async commit() {
          await new Promise<void>((resolve) => out.end(resolve));
          const ttlSeconds = Math.floor(untilSec - Date.now() / 1000);
          if (failed || ttlSeconds < 1) return drop();
          try {
            const meta = await blobs.put({ kind: 'media', fromPath: file, contentType, ttlSeconds });
            kept.set(source, { id: meta.id, ext });
            finish();
          } catch (err) {
            log.warn({ err: (err as Error).message }, 'media copy not kept');
            drop();
          }
        },
      };
    },
  };
}
