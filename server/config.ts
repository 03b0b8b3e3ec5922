// The configuration, read from the environment once at boot: every variable the service knows, with its
// default (every default lets `npm start` work offline on a fresh machine) and a boot error naming a bad value.
import path from 'node:path';
import { parseDuration } from '../engine/duration.js';
import type { BillingConfig, Config, HealthConfig, MailConfig, McpConfig, MediaConfig, S3Config, SignupMode } from '../engine/config.js';
import { fileURLToPath } from 'node:url';

// server/ in the source tree, dist/server/ once built: the project root is one or two levels up.
const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.basename(path.dirname(here)) === 'dist';
const root = path.resolve(here, built ? '../..' : '..');

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value);
}

function atLeastOne(value: string | undefined, fallback: number, name: string): number {
  const n = int(value, fallback, name);
  if (n < 1) throw new Error(`${name} must be at least 1, got "${value}"`);
  return n;
}

function duration(value: string | undefined, fallback: string, name: string): number {
  try {
    return parseDuration(value || fallback);
  } catch {
    throw new Error(`${name} must be a duration such as 5s or 500ms, got "${value}"`);
  }
}

/** A stalled body holds a connection and a socket: 30 s is the most an operator may grant it. */
function bodyIdle(value: string | undefined): number {
  const ms = duration(value, '30s', 'BODY_IDLE_TIMEOUT');
  if (ms < 1000 || ms > 30_000) throw new Error(`BODY_IDLE_TIMEOUT must be between 1s and 30s, got "${value}"`);
  return ms;
}

/** A comma-separated list of durations ('5s,30s,2m'); 'none' for an empty one. */
function durations(value: string | undefined, fallback: string, name: string): number[] {
  const text = (value || fallback).trim();
  if (text === 'none') return [];
  try {
    return text.split(',').map((d) => parseDuration(d.trim()));
  } catch {
    throw new Error(`${name} must be durations separated by commas, such as 5s,30s,2m (or none), got "${value}"`);
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

function signupMode(value: string | undefined): SignupMode {
  const v = (value || 'open').toLowerCase();
  if (v !== 'open' && v !== 'approval' && v !== 'closed') throw new Error(`SIGNUP must be open, approval or closed, got "${value}"`);
  return v;
}

function adminTwoFactor(value: string | undefined): Config['adminTwoFactor'] {
  const v = (value || 'optional').toLowerCase();
  if (v !== 'required' && v !== 'optional') throw new Error(`ADMIN_2FA must be required or optional, got "${value}"`);
  return v;
}

const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

// SMTP_URL: smtp:// (STARTTLS when the server offers it, port 587 by default) or smtps:// (TLS at once, 465),
// a host, and a user and password (percent-encoded) when the server wants them; no ?options, which would
// otherwise be ignored quietly. MAIL_FROM defaults to the service's name at no-reply@ PUBLIC_URL's host.
function mailConfig(env: NodeJS.ProcessEnv, serviceName: string, publicUrl: string): MailConfig | undefined {
  const from = env.MAIL_FROM?.trim();
  if (from) {
    const m = /^(?:([^<>]*?)\s*<([^<>]+)>|([^<>]+))$/.exec(from);
    const address = m?.[2] ?? m?.[3];
    if (!address || !ADDRESS.test(address.trim()) || /[\r\n]/.test(from))
      throw new Error(`MAIL_FROM must be an email address, or a name and one in <>, got "${from}"`);
  }
  const raw = env.SMTP_URL?.trim();
  if (!raw) return undefined;
  const url = URL.parse(raw);
  // The value may hold a password: messages name the scheme and host only.
  const shown = url ? `${url.protocol}//${url.host}` : 'a value that is not a URL';
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname)
    throw new Error(`SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…, got ${shown}`);
  if (url.port === '0') throw new Error(`SMTP_URL has a bad port: ${shown}`);
  if (url.search || (url.pathname && url.pathname !== '/'))
    throw new Error(`SMTP_URL takes no path or ?options, got ${shown}${url.pathname === '/' ? '' : url.pathname}${url.search ? '?…' : ''}`);
  const secure = url.protocol === 'smtps:';
  let auth: MailConfig['auth'];
  try {
    auth = url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined;
  } catch {
    throw new Error(`SMTP_URL's user or password is not percent-encoded right (encode @ as %40, : as %3A), at ${shown}`);
  }
  const host = URL.parse(publicUrl)?.hostname;
  if (!from && !host) throw new Error(`MAIL_FROM is needed: PUBLIC_URL ("${publicUrl}") names no host to send from`);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth,
    from: from || `"${serviceName.replace(/["\\\r\n]/g, '')}" <no-reply@${host}>`,
  };
}

// STRIPE_SECRET_KEY turns billing on; it then needs the webhook's signing secret and at least one plan's price.
// STRIPE_API_URL (stripe-mock, a test double) is handed to the SDK as its host, port and protocol.
function billingConfig(env: NodeJS.ProcessEnv): BillingConfig | undefined {
  const secretKey = env.STRIPE_SECRET_KEY?.trim();
  if (!secretKey) return undefined;
  if (!/^(sk|rk)_(test|live)_\S+$/.test(secretKey))
    throw new Error('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… or rk_…)');
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET?.trim();
  if (!webhookSecret)
    throw new Error('STRIPE_WEBHOOK_SECRET is needed with STRIPE_SECRET_KEY: the signing secret (whsec_…) of the webhook endpoint');
  const prices: BillingConfig['prices'] = {};
  for (const plan of ['premium', 'enterprise'] as const) {
    const name = `STRIPE_PRICE_${plan.toUpperCase()}`;
    const id = env[name]?.trim();
    if (!id) continue;
    if (!/^price_\w+$/.test(id)) throw new Error(`${name} must be a Stripe price id (price_…), got "${id}"`);
    prices[plan] = id;
  }
  if (!Object.keys(prices).length)
    throw new Error('STRIPE_PRICE_PREMIUM or STRIPE_PRICE_ENTERPRISE is needed with STRIPE_SECRET_KEY: the plans to sell');
  if (prices.premium && prices.premium === prices.enterprise)
    throw new Error('STRIPE_PRICE_PREMIUM and STRIPE_PRICE_ENTERPRISE must differ');
  let api: BillingConfig['api'];
  const raw = env.STRIPE_API_URL?.trim();
  if (raw) {
    const url = URL.parse(raw);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || (url.pathname && url.pathname !== '/'))
      throw new Error(`STRIPE_API_URL must be http(s)://host[:port] with no path, got "${raw}"`);
    const protocol = url.protocol === 'https:' ? 'https' : 'http';
    api = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : protocol === 'https' ? 443 : 80, protocol };
  }
  return { secretKey, webhookSecret, prices, api };
}

// Every tool on one page while the catalog fits: some clients (the Inspector CLI among them) read only the first.
const DEFAULT_MCP_PAGE_SIZE = 100;

function mcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const pageSize = Number(env.MCP_PAGE_SIZE ?? DEFAULT_MCP_PAGE_SIZE);
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new Error(`MCP_PAGE_SIZE must be a whole number of at least 1, got "${env.MCP_PAGE_SIZE}"`);
  return {
    pageSize,
    hideUnconfigured: env.MCP_HIDE_UNCONFIGURED === 'true',
    allowedOrigins: (env.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  };
}

function healthConfig(env: NodeJS.ProcessEnv): HealthConfig {
  const webhook = env.ALERT_WEBHOOK_URL?.trim() || undefined;
  if (webhook && !/^https?:\/\/[^/]/.test(webhook)) throw new Error('ALERT_WEBHOOK_URL must be an http(s) URL');
  const probeIntervalMs = env.PROBE_INTERVAL === 'off' ? 0 : duration(env.PROBE_INTERVAL, '0s', 'PROBE_INTERVAL');
  if (probeIntervalMs > 0 && probeIntervalMs < 1000)
    throw new Error(`PROBE_INTERVAL must be at least 1s (or 0 / off), got "${env.PROBE_INTERVAL}"`);
  return {
    probeIntervalMs,
    probeEndpoints: (env.PROBE_ENDPOINTS ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
    alertWebhookUrl: webhook,
    alertEmail: env.ALERT_EMAIL?.trim() || env.ADMIN_EMAIL?.trim() || undefined,
    alertProbeFailures: atLeastOne(env.ALERT_PROBE_FAILURES, 3, 'ALERT_PROBE_FAILURES'),
    alertRetryDelaysMs: durations(env.ALERT_RETRY_DELAYS, '2s,10s', 'ALERT_RETRY_DELAYS'),
  };
}

/** `<NAME>` and its per-plan `<NAME>_<PLAN>` overrides, each a whole number of `unit`s. */
function perPlan(env: NodeJS.ProcessEnv, name: string, fallback: number, unit = 1): { default: number; plans: Record<string, number> } {
  const plans: Record<string, number> = {};
  const re = new RegExp(`^${name}_([A-Z0-9_]+)$`);
  for (const [key, value] of Object.entries(env)) {
    const m = re.exec(key);
    if (m && value) plans[m[1].toLowerCase()] = atLeastOne(value, 1, key) * unit;
  }
  return { default: atLeastOne(env[name], fallback, name) * unit, plans };
}

function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new Error(`${name} must be on or off, got "${value}"`);
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T, name: string): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
}

function mediaConfig(env: NodeJS.ProcessEnv): MediaConfig {
  const secrets = (env.MEDIA_LINK_SECRETS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const short = secrets.find((s) => s.length < 32);
  if (short !== undefined) throw new Error('MEDIA_LINK_SECRETS: each secret must be at least 32 characters');
  return {
    linkTtlMs: duration(env.MEDIA_LINK_TTL, '6h', 'MEDIA_LINK_TTL'),
    linkSecrets: secrets,
    facts: bool(env.MEDIA_FACTS, true, 'MEDIA_FACTS'),
    store: onOff(env.MEDIA_STORE, false, 'MEDIA_STORE'),
    cacheTtlMs: env.MEDIA_CACHE_TTL === 'off' ? 0 : duration(env.MEDIA_CACHE_TTL, '10m', 'MEDIA_CACHE_TTL'),
    streams: perPlan(env, 'MEDIA_STREAMS', 4),
    dailyBytes: perPlan(env, 'MEDIA_DAILY_MB', 2048, 1024 * 1024),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 3000, 'PORT');
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const serviceName = env.SERVICE_NAME || 'Unified Utility API';
  const planOverrides: Config['planOverrides'] = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^PLAN_([A-Z0-9_]+?)_(LIMIT|WINDOW|LOG_DAYS)$/.exec(name);
    if (!m || value === undefined) continue;
    const id = m[1].toLowerCase();
    planOverrides[id] ??= {};
    if (m[2] === 'LIMIT') planOverrides[id].limit = int(value, 1, name);
    else if (m[2] === 'LOG_DAYS') planOverrides[id].logDays = atLeastOne(value, 1, name);
    else planOverrides[id].window = value;
  }
  return {
    port,
    host: env.HOST || '0.0.0.0',
    publicUrl,
    redisUrl: env.REDIS_URL || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || path.join(root, 'data')),
    serviceName,
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
    requestLog: {
      on: onOff(env.REQUEST_LOG, false, 'REQUEST_LOG'),
      ip: oneOf(env.REQUEST_LOG_IP, ['truncated', 'full', 'none'] as const, 'truncated', 'REQUEST_LOG_IP'),
    },
    metricsToken: env.METRICS_TOKEN || undefined,
    drainDelayMs: duration(env.DRAIN_DELAY, '0s', 'DRAIN_DELAY'),
    shutdownTimeoutMs: duration(env.SHUTDOWN_TIMEOUT, '30s', 'SHUTDOWN_TIMEOUT'),
    bodyIdleTimeoutMs: bodyIdle(env.BODY_IDLE_TIMEOUT),
    // Behind a proxy every client comes from the proxy's address: the cap is the proxy's to keep.
    connectionsPerAddress: int(env.MAX_CONNECTIONS_PER_IP, trustProxy(env.TRUST_PROXY) === false ? 64 : 0, 'MAX_CONNECTIONS_PER_IP'),
    s3: s3Config(env),
    allowPrivateFetch: env.ALLOW_PRIVATE_FETCH === 'true',
    redisPrefix: env.REDIS_PREFIX ?? 'uua:',
    signup: signupMode(env.SIGNUP),
    signupLimit: atLeastOne(env.SIGNUP_LIMIT, 10, 'SIGNUP_LIMIT'),
    freePersonalKeys: bool(env.FREE_PERSONAL_KEYS, false, 'FREE_PERSONAL_KEYS'),
    admin: env.ADMIN_EMAIL?.trim()
      ? { email: env.ADMIN_EMAIL.trim(), password: env.ADMIN_PASSWORD || undefined, name: env.ADMIN_NAME }
      : undefined,
    adminTwoFactor: adminTwoFactor(env.ADMIN_2FA),
    mcp: mcpConfig(env),
    webhooks: {
      retryDelaysMs: durations(env.WEBHOOK_RETRY_DELAYS, '5s,30s,2m,15m', 'WEBHOOK_RETRY_DELAYS'),
      timeoutMs: duration(env.WEBHOOK_TIMEOUT, '15s', 'WEBHOOK_TIMEOUT'),
    },
    mail: mailConfig(env, serviceName, publicUrl),
    health: healthConfig(env),
    billing: billingConfig(env),
    media: mediaConfig(env),
    env,
  };
}

/** True when /metrics answers anyone who can reach a non-loopback address (no METRICS_TOKEN). */
export function metricsExposed(config: Pick<Config, 'metricsToken' | 'host'>): boolean {
  if (config.metricsToken) return false;
  const host = config.host.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}
