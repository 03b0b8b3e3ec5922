// The disk backend of hosted blobs (engine/hosting/blobs.ts), the embedded default. Under DATA_DIR/blobs: the bytes
// as <id> and their metadata as <id>.json beside them, so nothing is lost on restart. Expired blobs are hidden at once
// by get() and removed from disk by a sweeper (every minute, and once at start for what expired while the
// service was down).
//
// Writes are ordered so that a crash never leaves a half-written blob visible: bytes first (to a .part
// file renamed into place), metadata last (written to .tmp and renamed). A blob whose metadata never got
// written is an orphan; the sweeper removes orphans and stale temporary files after an hour.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { BLOB_ID, blobUrl, isExpired, newId, newMeta } from './meta.js';
import { parseStoredMeta } from './stored-meta.js';
import type { ByteRange, HostedBlobs, HostedMeta } from './types.js';

/** Orphans and temporary files younger than this may belong to a write in progress. */
const STALE_MS = 60 * 60_000;

/** `clock` is the time for expiry (tests move it). */
export function createBlobStore(
  dataDir: string,
  publicUrl: string,
  log: Logger,
  sweepEveryMs = 60_000,
  clock: () => number = () => Date.now(),
): HostedBlobs {
  const dir = path.join(dataDir, 'blobs');
  fs.mkdirSync(dir, { recursive: true });
  const file = (id: string) => path.join(dir, id);
  const metaFile = (id: string) => path.join(dir, `${id}.json`);

  async function readMeta(id: string): Promise<HostedMeta | undefined> {
    if (!BLOB_ID.test(id)) return undefined;
    const json = await fsp.readFile(metaFile(id), 'utf8').catch(() => undefined);
    return json === undefined ? undefined : parseStoredMeta(json, id);
  }

  async function remove(id: string): Promise<boolean> {
    if (!BLOB_ID.test(id)) return false;
    // Metadata first: once it is gone the blob is no longer served, even if removing the bytes fails.
    const had = await fsp.rm(metaFile(id)).then(
      () => true,
      () => false,
    );
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
    const now = clock();
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
          if (meta && isExpired(meta, now)) {
            await remove(meta.id);
            expiredCount++;
          }
        } else if (name.endsWith('.tmp') || name.endsWith('.part') || (BLOB_ID.test(name) && !metas.has(name))) {
          const { mtimeMs } = await fsp.stat(path.join(dir, name));
          if (now - mtimeMs <= STALE_MS) continue;
          // The listing may predate a put that has since written its metadata: look again before removing.
          if (
            BLOB_ID.test(name) &&
            (await fsp.access(metaFile(name)).then(
              () => true,
              () => false,
            ))
          )
            continue;
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
    async put(input) {
      const { bytes, fromPath } = input;
      const id = await claimId();
      try {
        if (fromPath) await moveInto(fromPath, file(id));
        else {
          await fsp.writeFile(`${file(id)}.part`, bytes ?? Buffer.alloc(0));
          await fsp.rename(`${file(id)}.part`, file(id));
        }
        const meta = newMeta(id, (await fsp.stat(file(id))).size, input, clock());
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
      if (isExpired(meta, clock())) {
        await remove(id);
        return undefined;
      }
      return { meta };
    },
    async read(id: string, range?: ByteRange): Promise<Readable | undefined> {
      if (!BLOB_ID.test(id)) return undefined;
      const stream = fs.createReadStream(file(id), range ?? {});
      // Opened before it is handed out, so a blob removed meanwhile is a 404 rather than a broken answer.
      return new Promise((resolve, reject) => {
        stream.once('open', () => resolve(stream));
        stream.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve(undefined) : reject(err)));
      });
    },
    url: (meta, suffix) => blobUrl(publicUrl, meta, suffix),
    remove,
    sweep,
    state: () => ({ backend: 'disk', reachable: true }),
    close() {
      clearInterval(timer);
    },
  };
  const run = () => sweep().catch((err) => log.warn({ err }, 'blob sweep failed'));
  const timer = setInterval(() => void run(), sweepEveryMs);
  timer.unref();
  setImmediate(() => void run());
  return store;
}
