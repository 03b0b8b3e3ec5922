// A hosted blob's metadata as a row of the `hosted` table (engine/db/tables/hosted.ts) and back. The table's
// CHECKs hold each kind to its fields, so a row of a kind has them all; a row of no known kind is no blob.
import type { Insertable, Selectable } from 'kysely';
import type { HostedTable } from '../../engine/db/tables/hosted.js';
import type { HostedMeta } from './types.js';

type Row = Selectable<HostedTable>;

/** When the blob expires, in epoch ms (the column's unit); an expiry that is no time has passed already. */
export function expiryMs(meta: HostedMeta): number | null {
  if (meta.expiresAt === null) return null;
  const ms = Date.parse(meta.expiresAt);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The row of `meta`: `ready` says whether it is served, `expiresAt` when the sweeper removes it. */
export function rowOf(meta: HostedMeta, state: { ready: 0 | 1; expiresAt: number | null }): Insertable<HostedTable> {
  const base = { id: meta.id, kind: meta.kind, contentType: meta.contentType, size: meta.size, createdAt: meta.createdAt, ...state };
  switch (meta.kind) {
    case 'paste':
      return { ...base, name: meta.name, format: meta.format, private: meta.private, expire: meta.expire };
    case 'image':
      return { ...base, fileName: meta.fileName, ext: meta.ext, width: meta.width, height: meta.height, deleteHash: meta.deleteHash };
    case 'file':
      return { ...base, fileName: meta.fileName, fileId: meta.fileId, md5: meta.md5 };
    case 'media':
      return base;
  }
}

/** The metadata a row holds; undefined for a kind this build does not know. */
export function metaOf(r: Row): HostedMeta | undefined {
  const base = {
    id: r.id,
    contentType: r.contentType,
    size: r.size,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt).toISOString(),
  };
  // The non-null assertions stand on the table's CHECK for the row's kind.
  switch (r.kind) {
    case 'paste':
      return { ...base, kind: 'paste', name: r.name!, format: r.format!, private: r.private === 1 ? 1 : 0, expire: r.expire! };
    case 'image':
      return { ...base, kind: 'image', fileName: r.fileName!, ext: r.ext!, width: r.width, height: r.height, deleteHash: r.deleteHash! };
    case 'file':
      return { ...base, kind: 'file', fileName: r.fileName!, fileId: r.fileId!, md5: r.md5! };
    case 'media':
      return { ...base, kind: 'media' };
    default:
      return undefined;
  }
}
