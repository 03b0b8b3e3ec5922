// A hosted blob store as the server builds it (features/hosting/store.ts), for tests that use one without a
// whole app: the `hosted` table over the disk or an S3 bucket.
import pino from 'pino';
import type { Db } from '../../engine/db/open.js';
import { diskBytes } from '../../features/hosting/disk.js';
import { s3Bytes } from '../../features/hosting/s3.js';
import { createHostedBlobs } from '../../features/hosting/store.js';
import type { SweepLock } from '../../features/hosting/sweep-lock.js';
import type { HostedBlobs } from '../../features/hosting/types.js';
import { loadConfig } from '../../server/config.js';
import { freshDatabase } from './db.js';
import { tmpDirs } from './tmp-dirs.js';

const log = pino({ level: 'silent' });
const blobDirs = tmpDirs('uua-blobs-');

export const PUBLIC_URL = 'https://files.example.org';

/**
 * The table of `db` (a fresh SQLite database unless given) over the disk of `dataDir` (a fresh directory
 * unless given), or over S3 when `s3` holds the S3_* variables of a bucket.
 */
export async function openBlobs(
  o: { db?: Db; dataDir?: string; s3?: Record<string, string>; clock?: () => number; lock?: SweepLock; sweepEveryMs?: number } = {},
): Promise<{ blobs: HostedBlobs; db: Db; dataDir: string }> {
  const db = o.db ?? (await freshDatabase('sqlite')).db;
  const dataDir = o.dataDir ?? blobDirs();
  const blobs = createHostedBlobs({
    db,
    bytes: o.s3 ? s3Bytes(loadConfig(o.s3).s3!, log) : diskBytes(dataDir),
    publicUrl: PUBLIC_URL,
    log,
    lock: o.lock,
    sweepEveryMs: o.sweepEveryMs ?? 3_600_000,
    clock: o.clock,
  });
  return { blobs, db, dataDir };
}
