// Stored metadata (the JSON sidecar beside each blob, on disk or in the bucket) read back as a HostedMeta.
// The one place that knows the loose fields earlier builds wrote: blobs outlive builds (a file is kept 30 days,
// an image until deleted), so a restart on a new build must still serve them. Both backends read every
// sidecar through here, so a record cut short or edited by hand cannot hand the routes a field of the wrong
// type either.
//
// What earlier builds stored, and what it becomes:
//   kind   'p' | 'i' | 'f'        → 'paste' | 'image' | 'file' (the short names adapters could once pass)
//   paste  name absent or ''      → 'Untitled' (the title its page showed); format absent → 'text';
//          private: any truthy   → 1, else 0; expire absent → 'N'
//   image  filename               → fileName; absent → '<id>.<ext>'; ext absent → 'img';
//          width, height not numbers → null; deleteHash not a string → '' (its delete link then matches nothing)
//   file   fileName absent        → the id; fileId, md5 absent → ''
//   media  filename               → dropped (read by the media route, written by no build)
// Unknown fields are dropped; a record without its base fields, or of an unknown kind, is no blob at all
// (as an unreadable one always was).
import { canonicalKind } from './meta.js';
import type { BlobBase, HostedFields, HostedMeta } from './types.js';

type Loose = Record<string, unknown>;

/** A stored value as text, as the routes once read it (`String(x ?? fallback)`). */
const text = (value: unknown, fallback: string): string => (value === undefined || value === null ? fallback : String(value));
const dimension = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The typed fields of a record's kind, from today's names or those of earlier builds. */
function fieldsOf(r: Loose, id: string): HostedFields | undefined {
  const kind = canonicalKind(text(r.kind, ''));
  switch (kind) {
    case 'paste':
      return {
        kind,
        name: text(r.name, '') || 'Untitled',
        format: text(r.format, 'text'),
        private: r.private ? 1 : 0,
        expire: text(r.expire, 'N'),
      };
    case 'image': {
      const ext = text(r.ext, 'img');
      return {
        kind,
        fileName: text(r.fileName ?? r.filename, `${id}.${ext}`),
        ext,
        width: dimension(r.width),
        height: dimension(r.height),
        deleteHash: typeof r.deleteHash === 'string' ? r.deleteHash : '',
      };
    }
    case 'file':
      return { kind, fileName: text(r.fileName, id), fileId: text(r.fileId, ''), md5: text(r.md5, '') };
    case 'media':
      return { kind };
    default:
      return undefined;
  }
}

/** The base every build wrote (features/hosting/meta.ts newMeta), checked rather than trusted. */
function baseOf(r: Loose, id: string): BlobBase | undefined {
  const { contentType, size, createdAt, expiresAt } = r;
  if (r.id !== id || typeof contentType !== 'string' || typeof size !== 'number' || typeof createdAt !== 'string') return undefined;
  if (expiresAt !== null && typeof expiresAt !== 'string') return undefined;
  return { id, contentType, size, createdAt, expiresAt };
}

/** A stored record (already parsed) as today's metadata of blob `id`; undefined when it is not one. */
export function upgradeMeta(record: unknown, id: string): HostedMeta | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const base = baseOf(record as Loose, id);
  const fields = base && fieldsOf(record as Loose, id);
  return fields && { ...fields, ...base };
}

/** The sidecar's text as the metadata of blob `id`; undefined when it is unreadable or another blob's. */
export function parseStoredMeta(json: string, id: string): HostedMeta | undefined {
  try {
    return upgradeMeta(JSON.parse(json), id);
  } catch {
    return undefined;
  }
}
