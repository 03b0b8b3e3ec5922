// Configuration from the environment. Every default lets `npm start` work offline on a fresh machine.
import path from 'node:path';
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
  /** Only tests set this: lets guarded fetches reach loopback fakes. */
  allowPrivateFetch: boolean;
  env: NodeJS.ProcessEnv;
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

function trustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // a list of subnets, as Express accepts it
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
    allowPrivateFetch: env.ALLOW_PRIVATE_FETCH === 'true',
    env,
  };
}
