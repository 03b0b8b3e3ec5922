// The hosting feature's vocabulary, in one module every other hosting file imports and that imports none of
// them (so the store choice, the two backends and the routes form no circle): the engine's description of a
// hosted blob (engine/blob-store.ts, what adapters see), and the stores' interfaces beyond the adapters' part.
import type { Readable } from 'node:stream';
import type { BlobBody, BlobStore } from '../../engine/blob-store.js';

export type {
  BlobBase,
  BlobBody,
  FileMeta,
  HostedFields,
  HostedKind,
  HostedMeta,
  ImageMeta,
  NewBlob,
  PasteMeta,
} from '../../engine/blob-store.js';

/** Bytes `start` to `end`, both included (as in Content-Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStoreState {
  backend: 'disk' | 's3';
  /** False while the object store does not answer (the disk is always reachable). */
  reachable: boolean;
  lastError?: string;
}

/** Where the bytes of hosted blobs are kept (features/hosting/disk.ts, s3.ts): bytes only, under their blob's id. */
export interface ByteStore {
  /** Writes the bytes whole (a file on disk is moved in, not copied); on failure nothing is left to read. */
  write(id: string, body: BlobBody): Promise<void>;
  /** The bytes, or one range of them; undefined when there are none. */
  read(id: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Deletes them; none there is no error. */
  delete(id: string): Promise<void>;
  state(): BlobStoreState;
  close(): void;
}

/**
 * The metadata earlier builds kept beside the bytes, `<id>.json`, on disk or in the bucket: what
 * features/hosting/sidecars.ts moves into the `hosted` table. Read only by `npm run migrate` and by the check
 * before the server starts.
 */
export interface SidecarSource {
  /** Names it in `legacy_imports` and in messages. */
  readonly name: string;
  /** Whether any sidecar is there (reads no further than the first). */
  any(): Promise<boolean>;
  /** The ids that have a sidecar, a page at a time. */
  pages(): AsyncIterable<string[]>;
  /** A sidecar's text; undefined when it is gone. */
  read(id: string): Promise<string | undefined>;
  remove(id: string): Promise<void>;
  /** Removes what only the earlier layout's own sweeper read (the bucket's expiry markers); returns how many. */
  dropMarkers(): Promise<number>;
  close(): void;
}

/** What the engine does with hosted blobs beyond the adapters' part: serve, delete, sweep, watch. */
export interface HostedBlobs extends BlobStore {
  /** The bytes of a blob, or of one range of them; undefined when the blob is gone. */
  read(id: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Deletes a blob and its metadata now (a delete link, an operator); false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Removes expired blobs and leftovers of interrupted writes; returns how many blobs expired. */
  sweep(): Promise<number>;
  /** For /health and the operator metrics. */
  state(): BlobStoreState;
  close(): void;
}
