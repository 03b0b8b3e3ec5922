// The disk backend of hosted blobs (features/hosting/blobs.ts), the embedded default: the bytes of each blob as
// DATA_DIR/blobs/<id>. Their metadata is in the `hosted` table (features/hosting/store.ts), which also says
// when a blob is served: bytes are written to <id>.part and renamed into place, and a write cut off is
// removed by the sweeper through its row. Also the sidecars (<id>.json) earlier builds wrote beside the
// bytes, for `npm run migrate` to move into the table.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BLOB_ID } from './meta.js';
import type { BlobBody, ByteRange, ByteStore, SidecarSource } from './types.js';

const blobsDir = (dataDir: string) => path.join(dataDir, 'blobs');
const SIDECAR = /^([A-Za-z0-9]{6,32})\.json$/;
const PAGE = 500;

export function diskBytes(dataDir: string): ByteStore {
  const dir = blobsDir(dataDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = (id: string) => path.join(dir, id);

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

  return {
    async write(id: string, { bytes, fromPath }: BlobBody) {
      try {
        if (fromPath) await moveInto(fromPath, file(id));
        else {
          await fsp.writeFile(`${file(id)}.part`, bytes ?? Buffer.alloc(0));
          await fsp.rename(`${file(id)}.part`, file(id));
        }
      } catch (err) {
        await fsp.rm(`${file(id)}.part`, { force: true });
        throw err;
      }
    },
    async read(id: string, range?: ByteRange): Promise<Readable | undefined> {
      const stream = fs.createReadStream(file(id), range ?? {});
      // Opened before it is handed out, so a blob removed meanwhile is a 404 rather than a broken answer.
      return new Promise((resolve, reject) => {
        stream.once('open', () => resolve(stream));
        stream.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve(undefined) : reject(err)));
      });
    },
    async delete(id: string) {
      await fsp.rm(file(id), { force: true });
      await fsp.rm(`${file(id)}.part`, { force: true });
    },
    state: () => ({ backend: 'disk', reachable: true }),
    close() {},
  };
}

export function diskSidecars(dataDir: string): SidecarSource {
  const dir = blobsDir(dataDir);
  const sidecar = (id: string) => path.join(dir, `${id}.json`);
  return {
    name: 'hosted-sidecars:disk',
    async any() {
      const found = await fsp.opendir(dir).catch(() => undefined);
      if (!found) return false;
      for await (const entry of found) if (SIDECAR.test(entry.name)) return true; // leaving the loop closes it
      return false;
    },
    async *pages() {
      const names = await fsp.readdir(dir).catch(() => [] as string[]);
      const ids = names.flatMap((n) => SIDECAR.exec(n)?.[1] ?? []).filter((id) => BLOB_ID.test(id));
      for (let at = 0; at < ids.length; at += PAGE) yield ids.slice(at, at + PAGE);
    },
    read: (id) => fsp.readFile(sidecar(id), 'utf8').catch(() => undefined),
    remove: (id) => fsp.rm(sidecar(id), { force: true }),
    dropMarkers: async () => 0,
    close() {},
  };
}
