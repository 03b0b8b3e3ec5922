// The S3 backend of hosted blobs (engine/hosting/blobs.ts): every instance of a cluster reads and writes the same
// bucket, so a paste made through one is served by all, and no instance's disk holds anything that matters.
//
// Keys in the bucket:
//   blobs/<id>               the bytes
//   blobs/<id>.json          the metadata, a sidecar object written last: a blob exists once it does
//   due/<ms, 15 digits>/<id> an empty marker written first: "look at <id> at this time" (its expiry, or an
//                            hour after its creation when it never expires)
// Metadata goes in a sidecar rather than in the object's own x-amz-meta-* headers: those are limited to
// 2 KB in all (AWS), ASCII only, and titles and file names callers give run to 255 characters of any
// script; a sidecar has no such limit and reads back as it was written.
// The markers make the sweep cheap and complete: listing due/ returns keys in time order, so a sweep reads
// only what is due, and a blob whose write was cut off halfway (bytes without metadata) is found by its
// marker too. The sweep is safe to run twice at once (every step is an idempotent delete); with Redis, a
// lock lets one instance at a time do it (engine/hosting/sweep-lock.ts).
//
// The store being down must not hang the service: connecting and every silence of the store are bounded
// (S3_TIMEOUT_MS), one retry at most, and any failure but "no such key" becomes a 503 `storage_unavailable`.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type * as S3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { Logger } from 'pino';
import type { S3Config } from '../../engine/config.js';
import { storageUnavailable } from '../../engine/errors.js';
import type { SweepLock } from './sweep-lock.js';
import { BLOB_ID, blobUrl, isExpired, newId, newMeta } from './meta.js';
import { parseStoredMeta } from './stored-meta.js';
import type { ByteRange, BlobStoreState, HostedBlobs, HostedMeta } from './types.js';

/** A marker without metadata younger than this may belong to a write in progress. */
const STALE_MS = 60 * 60_000;
/** Multipart upload: parts of 8 MB, two in flight, so an upload holds about 16 MB whatever its size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

const bytesKey = (id: string) => `blobs/${id}`;
const metaKey = (id: string) => `blobs/${id}.json`;
const dueKey = (ms: number, id: string) => `due/${String(Math.max(0, Math.floor(ms))).padStart(15, '0')}/${id}`;
const DUE = /^due\/(\d{15})\/([A-Za-z0-9]+)$/;

/** "No such key": the one failure that is an answer rather than an outage. A missing bucket is an outage. */
function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** `length` bytes of `src` after the first `skip`; stops reading (and so closes `src`) once they are out. */
async function* span(src: AsyncIterable<Buffer>, skip: number, length: number): AsyncGenerator<Buffer> {
  let pos = 0;
  const end = skip + length;
  for await (const chunk of src) {
    const from = Math.max(0, skip - pos);
    const to = Math.min(chunk.length, end - pos);
    if (to > from) yield chunk.subarray(from, to);
    pos += chunk.length;
    if (pos >= end) return;
  }
}

export interface S3BlobOptions {
  publicUrl: string;
  log: Logger;
  lock?: SweepLock;
  sweepEveryMs?: number;
  /** Time for expiry (tests move it; the SDK keeps signing with the real one). */
  clock?: () => number;
}

export function createS3BlobStore(cfg: S3Config, opts: S3BlobOptions): HostedBlobs {
  // The SDK is required here, when an object store is configured, not at boot: it costs about half a
  // second to load, and an instance on disk never needs it.
  const require = createRequire(import.meta.url);
  const {
    CreateBucketCommand,
    DeleteObjectCommand,
    GetObjectCommand,
    HeadBucketCommand,
    HeadObjectCommand,
    ListObjectsV2Command,
    PutObjectCommand,
    S3Client,
  } = require('@aws-sdk/client-s3') as typeof S3;
  const { Upload } = require('@aws-sdk/lib-storage') as typeof LibStorage;
  const { publicUrl, log } = opts;
  const clock = opts.clock ?? (() => Date.now());
  const Bucket = cfg.bucket;
  const client = new S3Client({
    endpoint: cfg.endpoint,
    region: cfg.region,
    credentials: cfg.credentials,
    forcePathStyle: cfg.forcePathStyle,
    maxAttempts: 2,
    // Checksums only where S3 requires them: several S3-compatible stores reject the CRC32 trailers and
    // aws-chunked bodies the SDK sends by default; TLS and S3's own Content-MD5 checks still guard the bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: cfg.timeoutMs,
      // Idle time on the socket, not a bound on the whole transfer: a 200 MB upload may take minutes.
      socketTimeout: cfg.timeoutMs,
      httpAgent: { keepAlive: true, maxSockets: 64 },
      httpsAgent: { keepAlive: true, maxSockets: 64 },
    },
  });

  const state: BlobStoreState = { backend: 's3', reachable: true };
  function up() {
    if (!state.reachable) log.info('object store reachable again');
    state.reachable = true;
    delete state.lastError;
  }
  function down(err: unknown, op: string): never {
    const message = (err as Error)?.message || String(err);
    if (state.reachable) log.warn({ err: message, op, bucket: Bucket }, 'object store unavailable: hosting answers 503 until it returns');
    state.reachable = false;
    state.lastError = message;
    throw storageUnavailable();
  }

  /**
   * One call to the store: its answer, undefined for "no such key", a 503 for anything else. The whole
   * call is bounded by the timeout (a streamed body afterwards only by the socket's idle timeout).
   */
  async function call<T>(op: string, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${cfg.timeoutMs} ms`)), cfg.timeoutMs);
    try {
      const out = await run(abort.signal);
      up();
      return out;
    } catch (err) {
      if (isMissing(err)) {
        up();
        return undefined;
      }
      return down(abort.signal.aborted ? abort.signal.reason : err, op);
    } finally {
      clearTimeout(timer);
    }
  }

  async function readMeta(id: string): Promise<HostedMeta | undefined> {
    if (!BLOB_ID.test(id)) return undefined;
    const text = await call('get meta', async (abortSignal) => {
      const out = await client.send(new GetObjectCommand({ Bucket, Key: metaKey(id) }), { abortSignal });
      return out.Body!.transformToString();
    });
    return text === undefined ? undefined : parseStoredMeta(text, id);
  }

  const del = (Key: string) => call('delete', (abortSignal) => client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal }));
  const exists = async (Key: string) =>
    (await call('head', (abortSignal) => client.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal }))) !== undefined;

  async function remove(id: string): Promise<boolean> {
    if (!BLOB_ID.test(id)) return false;
    const had = await exists(metaKey(id));
    // Metadata first: once it is gone the blob is no longer served, even if removing the bytes fails.
    await del(metaKey(id));
    await del(bytesKey(id));
    return had;
  }

  /** A fresh id: 47 random bits rarely collide, but a collision would overwrite someone's blob. */
  async function claimId(): Promise<string> {
    for (let i = 0; ; i++) {
      const id = newId();
      if (!(await exists(bytesKey(id)))) return id;
      if (i > 5) throw new Error('no free blob id after several tries');
    }
  }

  async function writeBytes(id: string, input: { bytes?: Buffer; fromPath?: string; contentType: string }) {
    const { fromPath, contentType } = input;
    if (!fromPath) {
      await call('put', (abortSignal) =>
        client.send(new PutObjectCommand({ Bucket, Key: bytesKey(id), Body: input.bytes ?? Buffer.alloc(0), ContentType: contentType }), {
          abortSignal,
        }),
      );
      return;
    }
    // Streamed from the upload's temporary file in parts: memory stays flat whatever the file's size.
    const upload = new Upload({
      client,
      params: { Bucket, Key: bytesKey(id), Body: fs.createReadStream(fromPath), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
    });
    try {
      await upload.done();
      up();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (err as NodeJS.ErrnoException).path === fromPath) throw err;
      down(err, 'upload');
    }
  }

  async function settle(id: string, markerKey: string, markerAge: number, now: number): Promise<number> {
    const meta = await readMeta(id);
    if (meta && !isExpired(meta, now)) {
      if (meta.expiresAt === null) await del(markerKey); // written in full and kept for good: nothing to do
      return 0;
    }
    if (!meta && markerAge <= STALE_MS) return 0; // its write may still be under way
    if (meta) await remove(id);
    else await del(bytesKey(id)); // an interrupted write, or a blob removed since
    await del(markerKey);
    return meta ? 1 : 0;
  }

  async function sweep(): Promise<number> {
    const now = clock();
    let expired = 0;
    let ContinuationToken: string | undefined;
    do {
      const page = await call('list', (abortSignal) =>
        client.send(new ListObjectsV2Command({ Bucket, Prefix: 'due/', ContinuationToken }), { abortSignal }),
      );
      for (const { Key, LastModified } of page?.Contents ?? []) {
        const m = DUE.exec(Key ?? '');
        if (!m) continue;
        if (Number(m[1]) > now) return done(); // markers list in time order: the rest is not due yet
        expired += await settle(m[2], Key!, now - (LastModified?.getTime() ?? 0), now);
      }
      ContinuationToken = page?.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return done();

    function done() {
      if (expired) log.info({ removed: expired }, 'blob sweep');
      return expired;
    }
  }

  /** Creates the bucket when it is missing (a fresh MinIO, a test); never blocks the boot. */
  let bucketChecked = false;
  async function ensureBucket() {
    if (bucketChecked) return;
    const found = await call('head bucket', (abortSignal) => client.send(new HeadBucketCommand({ Bucket }), { abortSignal }));
    if (found === undefined) {
      await call('create bucket', async (abortSignal) => {
        try {
          await client.send(new CreateBucketCommand({ Bucket }), { abortSignal });
          log.info({ bucket: Bucket }, 'object store bucket created');
        } catch (err) {
          // Another instance of the cluster created it first.
          if (!/^BucketAlready(Exists|OwnedByYou)$/.test((err as Error).name)) throw err;
        }
      });
    }
    bucketChecked = true;
  }

  const store: HostedBlobs = {
    async put(input) {
      const id = await claimId();
      const size = input.fromPath ? (await fsp.stat(input.fromPath)).size : (input.bytes?.length ?? 0);
      const meta = newMeta(id, size, input, clock());
      const due = meta.expiresAt ? Date.parse(meta.expiresAt) : Date.parse(meta.createdAt) + STALE_MS;
      await call('put marker', (abortSignal) =>
        client.send(new PutObjectCommand({ Bucket, Key: dueKey(due, id), Body: '', ContentLength: 0 }), { abortSignal }),
      );
      try {
        await writeBytes(id, input);
        await call('put meta', (abortSignal) =>
          client.send(new PutObjectCommand({ Bucket, Key: metaKey(id), Body: JSON.stringify(meta), ContentType: 'application/json' }), {
            abortSignal,
          }),
        );
      } catch (err) {
        await del(bytesKey(id)).catch(() => {}); // else the sweeper finds it by its marker
        throw err;
      }
      if (input.fromPath) await fsp.rm(input.fromPath, { force: true });
      return meta;
    },
    async get(id) {
      const meta = await readMeta(id);
      if (!meta) return undefined;
      if (isExpired(meta, clock())) {
        await remove(id).catch(() => {}); // hidden now whatever happens; the sweeper retries
        return undefined;
      }
      return { meta };
    },
    async read(id: string, range?: ByteRange): Promise<Readable | undefined> {
      if (!BLOB_ID.test(id)) return undefined;
      return call('get', async (abortSignal) => {
        const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
        const out = await client.send(new GetObjectCommand({ Bucket, Key: bytesKey(id), Range }), { abortSignal });
        const body = out.Body as Readable;
        if (!range) return body;
        // A store that answers another span than asked (s3rver sends everything for bytes=0-0) must not
        // make us send more bytes than our Content-Length says.
        const from = Number(/^bytes (\d+)-/.exec(out.ContentRange ?? '')?.[1] ?? 0);
        const length = range.end - range.start + 1;
        return from === range.start && out.ContentLength === length ? body : Readable.from(span(body, range.start - from, length));
      });
    },
    url: (meta, suffix) => blobUrl(publicUrl, meta, suffix),
    remove,
    async sweep() {
      await ensureBucket();
      return (opts.lock ? await opts.lock(sweep) : await sweep()) ?? 0;
    },
    state: () => ({ ...state }),
    close() {
      closed = true;
      clearInterval(timer);
      clearImmediate(first);
      client.destroy();
    },
  };
  let closed = false;
  const run = () => {
    if (!closed) store.sweep().catch((err) => log.debug({ err: (err as Error).message }, 'blob sweep skipped'));
  };
  const timer = setInterval(run, opts.sweepEveryMs ?? 60_000);
  timer.unref();
  const first = setImmediate(run);
  return store;
}
