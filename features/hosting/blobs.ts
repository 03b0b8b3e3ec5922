// Hosted blobs (pastes, images, files, generated media): one interface, two backends. The disk under
// DATA_DIR is the embedded default (engine/hosting/disk.ts); with S3_BUCKET set every blob and its metadata
// go to an S3-compatible store shared by all instances (engine/hosting/s3.ts). Nothing outside these files
// knows which one is in use: the engine, the hosting routes and the adapters see only HostedBlobs. The types
// they share live in engine/hosting/types.ts, which imports neither backend (no circle through this file).
import type { Logger } from 'pino';
import type { Config } from '../../engine/config.js';
import type { RedisClientType } from 'redis';
import { createBlobStore } from './disk.js';
import { createS3BlobStore } from './s3.js';
import { sweepLock } from './sweep-lock.js';
import type { HostedBlobs } from './types.js';

export { canonicalKind } from './meta.js';
export { createBlobStore } from './disk.js';
export type { HostedBlobs } from './types.js';

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
