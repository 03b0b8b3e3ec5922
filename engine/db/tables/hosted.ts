// Hosted content's metadata (features/hosting/): one row per blob; its bytes are in the blob store (disk or S3).
// Typed columns, not one JSON document: the database holds each kind to its own fields (a CHECK per kind,
// migrations/0007-hosted.ts), so a row reads back typed without parsing or guessing, and a row short of its
// kind's fields cannot be written at all. A kind's own columns are null in the other kinds' rows.
export interface HostedTable {
  /** 8 random characters of [A-Za-z0-9]: the capability its links carry. */
  id: string;
  /** 'paste' | 'image' | 'file' | 'media'. */
  kind: string;
  contentType: string;
  size: number;
  /** ISO time. */
  createdAt: string;
  /** Epoch ms, null for never (indexed: the sweeper's look-up). While `ready` is 0: when the sweeper removes it. */
  expiresAt: number | null;
  /** 1 once its bytes are all written: only these rows are served. 0 while being written or removed. */
  ready: number;
  // A paste's.
  name: string | null;
  format: string | null;
  /** 0 or 1. */
  private: number | null;
  expire: string | null;
  // An image's and a file's.
  fileName: string | null;
  // An image's.
  ext: string | null;
  width: number | null;
  height: number | null;
  deleteHash: string | null;
  // A file's.
  fileId: string | null;
  md5: string | null;
}

export interface HostedTables {
  hosted: HostedTable;
}
