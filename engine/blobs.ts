// Hosted blobs (pastes, images, files, generated media) on disk under DATA_DIR/blobs: the bytes as <id> and
// their metadata as <id>.json beside them, so nothing is lost on restart. Expired blobs are hidden at once
// by get() and removed from disk by a sweeper (every minute, and once at start for what expired while the
// service was down).
//
// Writes are ordered so that a crash never leaves a half-written blob visible: bytes first (to a .part
// file renamed into place), metadata last (written to .tmp and renamed). A blob whose metadata never got
// written is an orphan; the sweeper removes orphans and stale temporary files after an hour.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { BlobMeta, BlobStore } from './types.js';

export interface HostedBlobs extends BlobStore {
  /** Deletes a blob and its metadata now (a delete link, an operator); false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Removes expired blobs, orphans and stale temporary files; returns how many blobs expired. */
  sweep(): Promise<number>;
  close(): void;
}

/** The first path segment of each kind's public URL (engine/hosting-routes.ts serves them). */
export const KIND_PREFIX: Record<string, string> = { paste: 'p', image: 'i', file: 'f', media: 'media' };
const KIND_OF_PREFIX: Record<string, string> = Object.fromEntries(Object.entries(KIND_PREFIX).map(([k, p]) => [p, k]));

/** `p` and `paste` name the same kind: adapters may use either. */
export function canonicalKind(kind: string): string {
  return KIND_OF_PREFIX[kind] ?? kind;
}

export const BLOB_ID = /^[A-Za-z0-9]{6,32}$/;
const ID_LENGTH = 8;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Orphans and temporary files younger than this may belong to a write in progress. */
const STALE_MS = 60 * 60_000;

/** 8 characters of [A-Za-z0-9]: about 47 bits, so ids cannot be enumerated (private pastes rely on it). */
function newId(): string {
  let id = '';
  while (id.length < ID_LENGTH) {
    for (const b of crypto.randomBytes(ID_LENGTH * 2)) {
      if (b < 248 && id.length < ID_LENGTH) id += ALPHABET[b % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return id;
}

export function createBlobStore(dataDir: string, publicUrl: string, log: Logger, sweepEveryMs = 60_000): HostedBlobs {
  const dir = path.join(dataDir, 'blobs');
  fs.mkdirSync(dir, { recursive: true });
  const file = (id: string) => path.join(dir, id);
  const metaFile = (id: string) => path.join(dir, `${id}.json`);

  async function readMeta(id: string): Promise<BlobMeta | undefined> {
    if (!BLOB_ID.test(id)) return undefined;
    try {
      const meta = JSON.parse(await fsp.readFile(metaFile(id), 'utf8')) as BlobMeta;
      return meta && meta.id === id ? meta : undefined;
    } catch {
      return undefined;
    }
  }

  const expired = (m: BlobMeta, now = Date.now()) => m.expiresAt !== null && !(Date.parse(m.expiresAt) > now);

  async function remove(id: string): Promise<boolean> {
    if (!BLOB_ID.test(id)) return false;
    // Metadata first: once it is gone the blob is no longer served, even if removing the bytes fails.
    const had = await fsp.rm(metaFile(id)).then(() => true, () => false);
    await fsp.rm(file(id), { force: true });
    return had;
  }

  /** Claims a fresh id by creating its blob file exclusively (no two puts can get the same id). */
  async function claimId(): Promise<string> {
    for (let i = 0; ; i++) {
      const id = newId();
      try {
        await (await fsp.open(file(id), 'wx')).close();
        return id;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i > 5) throw err;
      }
    }
  }

  async function moveInto(fromPath: string, to: string) {
    try {
      await fsp.rename(fromPath, to);
    } catch {
      // Another filesystem (an upload directory mounted elsewhere): copy, then drop the source.
      await fsp.copyFile(fromPath, `${to}.part`);
      await fsp.rename(`${to}.part`, to);
      await fsp.rm(fromPath, { force: true });
    }
  }

  async function sweep(): Promise<number> {
    const now = Date.now();
    let expiredCount = 0;
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      return 0;
    }
    const metas = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)));
    for (const name of names) {
      try {
        if (name.endsWith('.json')) {
          const meta = await readMeta(name.slice(0, -5));
          if (meta && expired(meta, now)) {
            await remove(meta.id);
            expiredCount++;
          }
        } else if (name.endsWith('.tmp') || name.endsWith('.part') || (BLOB_ID.test(name) && !metas.has(name))) {
          const { mtimeMs } = await fsp.stat(path.join(dir, name));
          if (now - mtimeMs <= STALE_MS) continue;
          // The listing may predate a put that has since written its metadata: look again before removing.
          if (BLOB_ID.test(name) && (await fsp.access(metaFile(name)).then(() => true, () => false))) continue;
          await fsp.rm(path.join(dir, name), { force: true });
        }
      } catch (err) {
        log.warn({ err: (err as Error).message, name }, 'blob sweep: could not handle an entry');
      }
    }
    if (expiredCount) log.info({ removed: expiredCount }, 'blob sweep');
    return expiredCount;
  }

  const store: HostedBlobs = {
    async put({ bytes, fromPath, kind, contentType, ttlSeconds, extra }) {
      const id = await claimId();
      try {
        if (fromPath) await moveInto(fromPath, file(id));
        else {
          await fsp.writeFile(`${file(id)}.part`, bytes ?? Buffer.alloc(0));
          await fsp.rename(`${file(id)}.part`, file(id));
        }
        const size = (await fsp.stat(file(id))).size;
        const now = Date.now();
        const meta: BlobMeta = {
          ...extra,
          id,
          kind: canonicalKind(kind),
          contentType,
          size,
          createdAt: new Date(now).toISOString(),
          expiresAt: ttlSeconds && ttlSeconds > 0 ? new Date(now + ttlSeconds * 1000).toISOString() : null,
        };
        const tmp = `${metaFile(id)}.tmp`;
        await fsp.writeFile(tmp, JSON.stringify(meta));
        await fsp.rename(tmp, metaFile(id));
        return meta;
      } catch (err) {
        await fsp.rm(file(id), { force: true });
        await fsp.rm(`${file(id)}.part`, { force: true });
        throw err;
      }
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
      const kind = canonicalKind(meta.kind);
      return `${publicUrl}/${KIND_PREFIX[kind] ?? kind}/${meta.id}${suffix}`;
    },
    remove,
    sweep,
    close() {
      clearInterval(timer);
    },
  };
  const run = () => sweep().catch((err) => log.warn({ err }, 'blob sweep failed'));
  const timer = setInterval(run, sweepEveryMs);
  timer.unref();
  setImmediate(run);
  return store;
}
