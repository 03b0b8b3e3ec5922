// The hosting feature's vocabulary, in one module every other hosting file imports and that imports none of
// them (so the store choice, the two backends and the routes form no circle): what each hosted kind records
// about its blob, what an adapter hands the store, and the stores' interfaces. Adapters see the metadata
// types and BlobStore through engine/adapter.ts. A HostedMeta is one row of the `hosted` table
// (engine/hosting/records.ts); the sidecars earlier builds kept beside the bytes are read into one by
// engine/hosting/stored-meta.ts, for `npm run migrate`.
import type { Readable } from 'node:stream';

/** What every hosted blob has, whatever its kind: the store sets these. */
export interface BlobBase {
  /** 8 random characters of [A-Za-z0-9]: the capability its links carry. */
  id: string;
  /** The type sniffed or declared at upload (the routes decide what is safe to serve inline). */
  contentType: string;
  size: number;
  /** ISO time. */
  createdAt: string;
  /** ISO time, or null for never. */
  expiresAt: string | null;
}

/** A text paste (cloud-storage/paste-host), with pastebin's parameters. */
export interface PasteFields {
  kind: 'paste';
  /** The title shown on its page. */
  name: string;
  /** The syntax code, shown and set as the code block's class (no highlighting script runs). */
  format: string;
  /** 1: unlisted (its pages ask not to be indexed, its text is cached privately only). */
  private: 0 | 1;
  /** pastebin's expiry code (N, 10M, 1H, …), as given. */
  expire: string;
}

/** An image (cloud-storage/image-host): a raster type sniffed from the bytes. */
export interface ImageFields {
  kind: 'image';
  /** The name it is served under, with its extension. */
  fileName: string;
  /** file-type's extension: the suffix of its direct link. */
  ext: string;
  width: number | null;
  height: number | null;
  /** SHA-256 (hex) of the token in its delete_url: the token itself is never stored. */
  deleteHash: string;
}

/** Any file (cloud-storage/file-host), only ever served back as an attachment. */
export interface FileFields {
  kind: 'file';
  fileName: string;
  /** gofile's UUID for the file, handed out in the answer. */
  fileId: string;
  md5: string;
}

/** Generated speech, images and video (tts, gen-models): nothing beyond the blob itself. */
interface MediaFields {
  kind: 'media';
}

/** What an adapter says about the blob it hosts: its kind and that kind's own fields. */
export type HostedFields = PasteFields | ImageFields | FileFields | MediaFields;
export type HostedKind = HostedFields['kind'];

export type PasteMeta = BlobBase & PasteFields;
export type ImageMeta = BlobBase & ImageFields;
export type FileMeta = BlobBase & FileFields;
type MediaMeta = BlobBase & MediaFields;
/** The metadata of a hosted blob, as the `hosted` table keeps it and the routes read it. */
export type HostedMeta = PasteMeta | ImageMeta | FileMeta | MediaMeta;

/** Where a new blob's bytes come from, their type and how long they are kept. */
export interface BlobBody {
  bytes?: Buffer;
  /** A file already on disk (an upload): moved, not copied. */
  fromPath?: string;
  contentType: string;
  /** Seconds to keep it; null, 0 or absent for ever. */
  ttlSeconds?: number | null;
}

/** A blob to store: its body and the typed fields of its kind. */
export type NewBlob = BlobBody & HostedFields;

/** What adapters may do with hosted blobs (AdapterContext.blobs). */
export interface BlobStore {
  /** Store bytes (or move a file already on disk) with their metadata; returns the metadata with its id. */
  put(input: NewBlob): Promise<HostedMeta>;
  /** The metadata of a blob that exists and has not expired. */
  get(id: string): Promise<{ meta: HostedMeta } | undefined>;
  /** Absolute URL at which the service serves the blob. */
  url(meta: HostedMeta, suffix?: string): string;
}

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

/** Where the bytes of hosted blobs are kept (engine/hosting/disk.ts, s3.ts): bytes only, under their blob's id. */
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
 * engine/hosting/sidecars.ts moves into the `hosted` table. Read only by `npm run migrate` and by the check
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
