// Hosted blobs (pastes, images, files, generated media): one interface, two backends. The disk under
// DATA_DIR is the embedded default (engine/hosting/disk.ts); with S3_BUCKET set every blob and its metadata
// go to an S3-compatible store shared by all instances (engine/hosting/s3.ts). Nothing outside these files
// knows which one is in use: the engine, the hosting routes and the adapters see only HostedBlobs.
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RedisClientType } from 'redis';
import type { BlobMeta, BlobStore } from '../types.js';
import { createBlobStore } from './disk.js';
import { createS3BlobStore } from './s3.js';
import { sweepLock } from './sweep-lock.js';

export { BLOB_ID, KIND_PREFIX, canonicalKind } from './meta.js';
export { createBlobStore } from './disk.js';

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

/** The backend the configuration asks for. Failures of the object store surface as 503s, never at boot. */
export function openBlobStore(config: Config, log: Logger, redis?: { client: RedisClientType; prefix: string }): HostedBlobs {
  if (!config.s3) return createBlobStore(config.dataDir, config.publicUrl, log);
  return createS3BlobStore(config.s3, {
    publicUrl: config.publicUrl,
    log,
    // With Redis, one instance at a time sweeps the shared bucket; without, the one instance does.
    lock: redis ? sweepLock(redis.client, `${redis.prefix}blobs:sweep`) : undefined,
  });
}

export type { BlobMeta };
