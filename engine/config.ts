// Configuration from the environment. Every default lets `npm start` work offline on a fresh machine.
import path from 'node:path';
import { parseDuration } from './duration.js';
import { fileURLToPath } from 'node:url';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  redisUrl: string | undefined;
  dataDir: string;
  serviceName: string;
  anonymousKey: string;
  freeKey: string;
  apiKeysFile: string | undefined;
  authFailLimit: number;
  trustProxy: boolean | number | string;
  logLevel: string;
  catalogDir: string;
  adaptersDir: string;
  /** Largest upload (file-host, image-host), in bytes. */
  maxUploadBytes: number;
  /** Largest JSON or urlencoded body, in bytes. */
  maxBodyBytes: number;
  /** Per-plan overrides: PLAN_<ID>_LIMIT and PLAN_<ID>_WINDOW. */
  planOverrides: Record<string, { limit?: number; window?: string }>;
  /** When set, /metrics wants `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** On SIGTERM: how long /health answers 503 (draining) before the server stops accepting. */
  drainDelayMs: number;
  /** On SIGTERM: the longest wait for in-flight requests before exiting anyway. */
  shutdownTimeoutMs: number;
  /** Hosted content in an S3-compatible store instead of DATA_DIR/blobs: set when S3_BUCKET is. */
  s3: S3Config | undefined;
  /** Only tests set this: lets guarded fetches reach loopback fakes. */
  allowPrivateFetch: boolean;
  env: NodeJS.ProcessEnv;
}

export interface S3Config {
  bucket: string;
  /** Another store than AWS (MinIO, Ceph RGW, R2): its base URL. */
  endpoint: string | undefined;
  region: string;
  /** Both or neither: without them the SDK's own chain (AWS_* variables, an instance role) applies. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`: what MinIO and most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Bound on connecting and on any silence of the store, in ms: past it hosting answers 503. */
  timeoutMs: number;
}

// engine/ in the source tree, dist/engine/ once built: the project root is one or two levels up.
const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.basename(path.dirname(here)) === 'dist';
const root = path.resolve(here, built ? '../..' : '..');

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value);
}

function duration(value: string | undefined, fallback: string, name: string): number {
  try {
    return parseDuration(value || fallback);
  } catch {
    throw new Error(`${name} must be a duration such as 5s or 500ms, got "${value}"`);
  }
}

function trustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // a list of subnets, as Express accepts it
}

function bool(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function s3Config(env: NodeJS.ProcessEnv): S3Config | undefined {
  if (!env.S3_BUCKET) return undefined;
  const id = env.S3_ACCESS_KEY_ID || undefined;
  const secret = env.S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(id) !== Boolean(secret)) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither');
  const endpoint = env.S3_ENDPOINT ? env.S3_ENDPOINT.replace(/\/+$/, '') : undefined;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint)) throw new Error(`S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  return {
    bucket: env.S3_BUCKET,
    endpoint,
    region: env.S3_REGION || 'us-east-1',
    credentials: id && secret ? { accessKeyId: id, secretAccessKey: secret } : undefined,
    forcePathStyle: bool(env.S3_FORCE_PATH_STYLE, Boolean(endpoint), 'S3_FORCE_PATH_STYLE'),
    timeoutMs: int(env.S3_TIMEOUT_MS, 5000, 'S3_TIMEOUT_MS'),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 3000, 'PORT');
  const planOverrides: Config['planOverrides'] = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^PLAN_([A-Z0-9_]+)_(LIMIT|WINDOW)$/.exec(name);
    if (!m || value === undefined) continue;
    const id = m[1].toLowerCase();
    planOverrides[id] ??= {};
    if (m[2] === 'LIMIT') planOverrides[id].limit = int(value, 1, name);
    else planOverrides[id].window = value;
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    redisUrl: env.REDIS_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || path.join(root, 'data')),
    serviceName: env.SERVICE_NAME || 'Unified Utility API',
    anonymousKey: env.ANONYMOUS_KEY || 'anonymous',
    freeKey: env.FREE_KEY || 'free',
    apiKeysFile: env.API_KEYS_FILE || undefined,
    authFailLimit: int(env.AUTH_FAIL_LIMIT, 100, 'AUTH_FAIL_LIMIT'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    catalogDir: env.CATALOG_DIR ? path.resolve(env.CATALOG_DIR) : path.join(root, 'catalog'),
    adaptersDir: path.join(root, built ? 'dist/adapters' : 'adapters'),
    maxUploadBytes: int(env.MAX_UPLOAD_MB, 32, 'MAX_UPLOAD_MB') * 1024 * 1024,
    maxBodyBytes: int(env.MAX_BODY_KB, 1024, 'MAX_BODY_KB') * 1024,
    planOverrides,
    metricsToken: env.METRICS_TOKEN || undefined,
    drainDelayMs: duration(env.DRAIN_DELAY, '0s', 'DRAIN_DELAY'),
    shutdownTimeoutMs: duration(env.SHUTDOWN_TIMEOUT, '30s', 'SHUTDOWN_TIMEOUT'),
    s3: s3Config(env),
    allowPrivateFetch: env.ALLOW_PRIVATE_FETCH === 'true',
    env,
  };
}
