// The hosting feature's vocabulary, in one module every other hosting file imports and that imports none of
// them (so the store choice, the two backends and the routes form no circle): the engine's description of a
// hosted blob (engine/blob-store.ts, what adapters see), and the stores' interfaces beyond the adapters' part.
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../engine/blob-store.js';

export type { BlobBase, FileMeta, HostedFields, HostedKind, HostedMeta, ImageMeta, NewBlob, PasteMeta } from '../../engine/blob-store.js';

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
