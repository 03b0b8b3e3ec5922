// Hosted blobs (pastes, images, files, generated media): one interface over the `hosted` table (the metadata)
// and one of two byte stores. The disk under DATA_DIR is the embedded default (features/hosting/disk.ts); with
// S3_BUCKET set the bytes go to an S3-compatible store shared by all instances (features/hosting/s3.ts).
// Nothing outside these files knows which one is in use: the engine, the hosting routes and the adapters see
// only HostedBlobs (features/hosting/store.ts). The types they share live in features/hosting/types.ts, which
// imports neither backend (no circle through this file).
import type { Logger } from 'pino';
import type { Config } from '../../engine/config.js';
import type { RedisClientType } from 'redis';
import type { Db } from '../../engine/db/open.js';
import { diskBytes, diskSidecars } from './disk.js';
import { s3Bytes, s3Sidecars } from './s3.js';
import { createHostedBlobs } from './store.js';
import { sweepLock } from './sweep-lock.js';
import type { HostedBlobs, SidecarSource } from './types.js';

export { canonicalKind } from './meta.js';
export type { HostedBlobs } from './types.js';

/** The backend the configuration asks for. Failures of the object store surface as 503s, never at boot. */
export function openBlobStore(config: Config, db: Db, log: Logger, redis?: { client: RedisClientType; prefix: string }): HostedBlobs {
  return createHostedBlobs({
    db,
    bytes: config.s3 ? s3Bytes(config.s3, log) : diskBytes(config.dataDir),
    publicUrl: config.publicUrl,
    log,
    // With Redis, one instance at a time sweeps; without, each sweeps what is due (idempotent deletes).
    lock: redis ? sweepLock(redis.client, `${redis.prefix}blobs:sweep`) : undefined,
  });
}

/** Where an earlier build of this configuration kept its blobs' metadata (features/hosting/sidecars.ts). */
export function openSidecars(config: Config, log: Logger): SidecarSource {
  return config.s3 ? s3Sidecars(config.s3, log) : diskSidecars(config.dataDir);
}
