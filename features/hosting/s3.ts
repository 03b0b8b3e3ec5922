// The S3 backend of hosted blobs (features/hosting/blobs.ts): every instance of a cluster reads and writes the same
// bucket, so a paste made through one is served by all, and no instance's disk holds anything that matters.
// The bucket keeps the bytes only, as `blobs/<id>`; their metadata is in the `hosted` table
// (features/hosting/store.ts), which also says when a blob is served and when it is swept. Earlier builds kept
// the metadata beside the bytes as `blobs/<id>.json`, and expiry markers `due/<ms>/<id>`: s3Sidecars reads
// and removes those for `npm run migrate`.
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
import { BLOB_ID } from './meta.js';
import type { BlobBody, ByteRange, BlobStoreState, ByteStore, SidecarSource } from './types.js';

/** Multipart upload: parts of 8 MB, two in flight, so an upload holds about 16 MB whatever its size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

const bytesKey = (id: string) => `blobs/${id}`;
const metaKey = (id: string) => `blobs/${id}.json`;
const SIDECAR = /^blobs\/([A-Za-z0-9]{6,32})\.json$/;

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

/** The client, the SDK's commands and one bounded call, with the store's reachability as they saw it. */
function connect(cfg: S3Config, log: Logger) {
  // The SDK is required here, when an object store is configured, not at boot: it costs about half a
  // second to load, and an instance on disk never needs it.
  const require = createRequire(import.meta.url);
  const sdk = require('@aws-sdk/client-s3') as typeof S3;
  const client = new sdk.S3Client({
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
  const Bucket = cfg.bucket;

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

  const del = (Key: string) => call('delete', (abortSignal) => client.send(new sdk.DeleteObjectCommand({ Bucket, Key }), { abortSignal }));
  /** The keys under `Prefix`, a page (up to 1,000) at a time, in key order. */
  async function* list(Prefix: string): AsyncGenerator<string[]> {
    let ContinuationToken: string | undefined;
    do {
      const page = await call('list', (abortSignal) =>
        client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }), { abortSignal }),
      );
      yield (page?.Contents ?? []).flatMap((o) => o.Key ?? []);
      ContinuationToken = page?.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }
  return { sdk, client, Bucket, state, up, down, call, del, list };
}

export function s3Bytes(cfg: S3Config, log: Logger): ByteStore {
  const { sdk, client, Bucket, state, up, down, call, del } = connect(cfg, log);
  const { Upload } = createRequire(import.meta.url)('@aws-sdk/lib-storage') as typeof LibStorage;

  /** Creates the bucket when it is missing (a fresh MinIO, a test), before the first write. */
  let bucketChecked = false;
  async function ensureBucket() {
    if (bucketChecked) return;
    const found = await call('head bucket', (abortSignal) => client.send(new sdk.HeadBucketCommand({ Bucket }), { abortSignal }));
    if (found === undefined) {
      await call('create bucket', async (abortSignal) => {
        try {
          await client.send(new sdk.CreateBucketCommand({ Bucket }), { abortSignal });
          log.info({ bucket: Bucket }, 'object store bucket created');
        } catch (err) {
          // Another instance of the cluster created it first.
          if (!/^BucketAlready(Exists|OwnedByYou)$/.test((err as Error).name)) throw err;
        }
      });
    }
    bucketChecked = true;
  }

  async function upload(id: string, { bytes, fromPath, contentType }: BlobBody) {
    if (!fromPath) {
      await call('put', (abortSignal) =>
        client.send(new sdk.PutObjectCommand({ Bucket, Key: bytesKey(id), Body: bytes ?? Buffer.alloc(0), ContentType: contentType }), {
          abortSignal,
        }),
      );
      return;
    }
    // Streamed from the upload's temporary file in parts: memory stays flat whatever the file's size.
    const parts = new Upload({
      client,
      params: { Bucket, Key: bytesKey(id), Body: fs.createReadStream(fromPath), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
    });
    try {
      await parts.done();
      up();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (err as NodeJS.ErrnoException).path === fromPath) throw err;
      down(err, 'upload');
    }
  }

  return {
    async write(id, body) {
      await ensureBucket();
      await upload(id, body);
      if (body.fromPath) await fsp.rm(body.fromPath, { force: true });
    },
    async read(id: string, range?: ByteRange): Promise<Readable | undefined> {
      return call('get', async (abortSignal) => {
        const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
        const out = await client.send(new sdk.GetObjectCommand({ Bucket, Key: bytesKey(id), Range }), { abortSignal });
        const body = out.Body as Readable;
        if (!range) return body;
        // A store that answers another span than asked (s3rver sends everything for bytes=0-0) must not
        // make us send more bytes than our Content-Length says.
        const from = Number(/^bytes (\d+)-/.exec(out.ContentRange ?? '')?.[1] ?? 0);
        const length = range.end - range.start + 1;
        return from === range.start && out.ContentLength === length ? body : Readable.from(span(body, range.start - from, length));
      });
    },
    async delete(id) {
      await del(bytesKey(id));
    },
    state: () => ({ ...state }),
    close: () => client.destroy(),
  };
}

export function s3Sidecars(cfg: S3Config, log: Logger): SidecarSource {
  const { sdk, client, Bucket, call, del, list } = connect(cfg, log);
  const sidecarIds = (keys: string[]) => keys.flatMap((k) => SIDECAR.exec(k)?.[1] ?? []).filter((id) => BLOB_ID.test(id));
  return {
    name: `hosted-sidecars:s3:${Bucket}`,
    async any() {
      for await (const keys of list('blobs/')) if (sidecarIds(keys).length) return true;
      return false;
    },
    async *pages() {
      for await (const keys of list('blobs/')) {
        const ids = sidecarIds(keys);
        if (ids.length) yield ids;
      }
    },
    read: (id) =>
      call('get meta', async (abortSignal) => {
        const out = await client.send(new sdk.GetObjectCommand({ Bucket, Key: metaKey(id) }), { abortSignal });
        return out.Body!.transformToString();
      }),
    async remove(id) {
      await del(metaKey(id));
    },
    async dropMarkers() {
      let dropped = 0;
      for await (const keys of list('due/')) {
        for (const key of keys) await del(key);
        dropped += keys.length;
      }
      return dropped;
    },
    close: () => client.destroy(),
  };
}
