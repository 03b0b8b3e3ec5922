// What adapters may host, and how a hosted blob is described: each hosted kind's metadata, what an adapter
// hands the store (NewBlob) and the store's part it sees (BlobStore, AdapterContext.blobs). Adapters see these
// through engine/adapter.ts; the hosting feature (features/hosting/) stores, serves and sweeps the blobs, its
// own interfaces in features/hosting/types.ts.

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
