// An S3-compatible server on a free loopback port for tests: s3rver from npm, which speaks the protocol
// the AWS SDK uses (signatures, multipart uploads, ranges, listing) and keeps objects in a directory.
// It can be stopped and started again on the same port, to play an object store outage.
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** The S3_* variables that point the service at this server. */
  env: Record<string, string>;
  /** The objects as files (s3rver's layout), for tests that look behind the service. */
  directory: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** s3rver's fixed credentials: it checks every request's signature against them. */
const ACCESS = 'S3RVER';

/** `opts.createBucket: false` leaves the bucket to the service (which creates a missing one). */
export async function startS3Server(opts: { bucket?: string; createBucket?: boolean } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? 'uua-test';
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-s3-'));
  let port = 0;
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: opts.createBucket === false ? [] : [{ name: bucket, configs: [] }],
    });
    port = (await server.run()).port;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    // A hard stop, as a crashed store: connections the SDK keeps alive are cut too.
    (s as unknown as { httpServer?: Server } | undefined)?.httpServer?.closeAllConnections();
    await s?.close();
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCESS,
      S3_SECRET_ACCESS_KEY: ACCESS,
      S3_FORCE_PATH_STYLE: 'true',
    },
    stop,
    start,
    async close() {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
