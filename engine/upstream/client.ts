// The clients of catalog/upstreams.yaml: one undici Agent (keep-alive pool) per upstream, with its base URL, timeout,
// retries on idempotent calls, a rotating pool of server keys, and one mapping from what the provider
// answered to the error vocabulary of engine/errors.ts. Adapters only see UpstreamClient.request().
//
// Nothing of the provider leaks to our caller: messages are fixed sentences that never carry a key, an
// upstream URL, an upstream body or a stack. Logs carry the upstream id, path, status and time, with
// every key scrubbed.
import type { IncomingHttpHeaders } from 'node:http';
import { undici } from './undici.js';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import type { Logger } from 'pino';
import { ApiError, badInput, notConfigured, notFound, upstreamBusy, upstreamChanged, upstreamFailed, upstreamTimeout } from '../errors.js';
import { parseDuration } from '../duration.js';
import { pause } from './pause.js';
import { LoadOnce } from '../load-once.js';
import { Stopped, UpstreamPolicy, type Failing } from './policy.js';
import { isRecord } from './shape.js';
import { KeyPool } from './key-pool.js';
import { ACCEPT_ENCODING, BodyError, TIMED_OUT, isSuccess, wholeAnswer } from './whole-answer.js';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from '../types.js';
import type { CancelScope } from './cancel.js';
import type { UpstreamSpec } from '../catalog/load.js';
import type { UpstreamEvents } from './upstream-events.js';

/** The engine's side of a client: `scope` stops its exchanges with the request (engine/pipeline/context.ts binds it). */
export interface ScopedUpstream extends UpstreamClient {
  request<T = unknown>(req: UpstreamRequest, scope?: CancelScope): Promise<UpstreamResponse<T>>;
}

/** What stops an exchange early: the adapter's own signal, and the request's scope (with its deadline). */
interface Stop {
  signal: AbortSignal | undefined;
  scope: CancelScope | undefined;
}

/** A retry is not started with less than this left before the endpoint's deadline. */
const MIN_ATTEMPT_MS = 250;
/** Jittered exponential backoff between tries (cockatiel's decorrelated jitter): about 100 ms, at most 1 s. */
const RETRY_BACKOFF = new ExponentialBackoff({ initialDelay: 100, maxDelay: 1000 });

/** One entry of catalog/upstreams.yaml (see upstreamsSchema in engine/catalog/schema.ts). */
export type UpstreamConfig = UpstreamSpec;

export interface UpstreamsOptions {
  userAgent: string;
  log: Logger;
  /** Sees every request() of an adapter once it settles: `outcome` is 'ok' or the ApiError code (metrics). */
  observe?: (upstreamId: string, outcome: string, seconds: number) => void;
  /** Told of every circuit breaker transition (the status page and operator alerts listen). */
  events?: UpstreamEvents;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 1;
/** A key the provider refuses (bad, unpaid, forbidden) is unlikely to work again soon. */
const REFUSED_KEY_COOLDOWN_MS = 10 * 60_000;
/** A throttled key without Retry-After. */
const THROTTLED_KEY_COOLDOWN_MS = 60_000;
/** Longest Retry-After we honour: a daily quota, not a typo of a year. */
const MAX_RETRY_AFTER_S = 24 * 3600;
const KEY_REFUSED = new Set([401, 402, 403]);
const NO_KEYS: ReadonlySet<string> = new Set();
const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});
/** Connection-level failures: worth one more try on an idempotent call, else "unreachable". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  // undici's own: the socket closed under a request, or the pool was closed.
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/** undici's phase timeouts (connect, headers, body): as late as our own timeout. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Largest answer read from an upstream, decompressed (media generation answers are the big ones). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Idle keep-alive sockets are closed after this, below the usual 5 s of Node and nginx servers. */
const KEEP_ALIVE_MS = 4_000;

/** What goes on the wire for one exchange. */
interface Call {
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
  /** The 5xx statuses the adapter takes as answers (allowStatus): not failures. */
  allow?: readonly number[];
}

/** One answer, its body read whole; `location` is set when it is a redirect to follow. */
interface Answer extends Partial<Failing> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  url: URL;
  location?: string;
}

/** `pokemon-tcg` → `POKEMON_TCG`, the infix of UPSTREAM_<ID>_URL / UPSTREAM_<ID>_KEYS. */
export function envId(id: string): string {
  return id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

export function createUpstreams(
  configs: Record<string, UpstreamConfig>,
  env: NodeJS.ProcessEnv,
  opts: UpstreamsOptions,
): (id: string) => ScopedUpstream {
  const clients = new Map<string, ScopedUpstream>();
  for (const [id, cfg] of Object.entries(configs)) clients.set(id, createClient(id, cfg, env, opts));
  return (id) => {
    const client = clients.get(id);
    // An adapter naming an upstream the catalog lacks is a bug, not a caller error.
    if (!client) throw new Error(`Unknown upstream "${id}": not in catalog/upstreams.yaml`);
    return client;
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

function createClient(id: string, cfg: UpstreamConfig, env: NodeJS.ProcessEnv, opts: UpstreamsOptions): ScopedUpstream {
  const ENV = envId(id);
  // `off` turns off an upstream that has a public default (an unofficial one such as gtx), so a fallback skips it.
  const given = nonEmpty(env[`UPSTREAM_${ENV}_URL`]);
  const baseUrl = given?.toLowerCase() === 'off' ? undefined : (given ?? nonEmpty(cfg.url));
  let base: URL | undefined;
  if (baseUrl) {
    try {
      base = new URL(baseUrl);
    } catch {
      base = undefined;
    }
    // Fail at boot, naming the variable but not echoing its value.
    if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
      throw new Error(`Upstream ${id}: the base URL (config url or UPSTREAM_${ENV}_URL) is not an http(s) URL`);
    }
  }
  const root = base?.toString().replace(/\/+$/, '');
  const auth = cfg.auth;
  if (auth && auth.in !== 'bearer' && !auth.name) {
    throw new Error(`Upstream ${id}: auth.in "${auth.in}" needs auth.name`);
  }
  const rawKeys = (env[`UPSTREAM_${ENV}_KEYS`] ?? '').split(',');
  const pool = new KeyPool(auth ? rawKeys : []);
  const log = opts.log.child({ upstream: id });
  if (!auth && rawKeys.some((k) => k.trim())) {
    log.warn(`UPSTREAM_${ENV}_KEYS is set but upstream ${id} has no auth section: the keys are not used`);
  }
  // UPSTREAM_<ID>_TIMEOUT (e.g. 5s) lets an operator, or a test, shorten or lengthen the configured wait.
  const timeout = env[`UPSTREAM_${ENV}_TIMEOUT`] || cfg.timeout;
  const timeoutMs = timeout ? parseDuration(timeout) : DEFAULT_TIMEOUT_MS;
  const retries = cfg.retries ?? DEFAULT_RETRIES;
  // UPSTREAM_POLICIES=off: every call goes through unguarded (upstreams that are all your own; the tests
  // that replay failure after failure on one app).
  const guarded = env.UPSTREAM_POLICIES?.trim().toLowerCase() !== 'off';
  const policy = new UpstreamPolicy(id, guarded ? cfg.policy : false, opts.events, log);
  const keyHeader = auth?.in === 'header' ? auth.name!.toLowerCase() : auth?.in === 'bearer' ? 'authorization' : undefined;
  const debug = log.isLevelEnabled('debug');

  // One keep-alive connection pool per upstream (per origin, for the URLs an adapter follows elsewhere),
  // made at its first exchange (once, however many start together).
  const agent = new LoadOnce(() => undici().then(({ Agent }) => new Agent({ keepAliveTimeout: KEEP_ALIVE_MS })));

  const scrub = (text: string, callerKey?: string): string => {
    let out = text;
    for (const k of [...pool.secrets(), ...(callerKey ? [callerKey] : [])]) out = out.split(k).join('***');
    return out;
  };

  const withKey = (url: URL, headers: Record<string, string>, key: string | undefined): void => {
    if (!key || !auth) return;
    if (auth.in === 'bearer') headers.authorization = `Bearer ${key}`;
    else if (auth.in === 'header') headers[keyHeader!] = key;
    else if (auth.in === 'query') url.searchParams.set(auth.name!, key);
  };

  /**
   * One exchange within `ms` (body included): the answer read whole, or, when it is a redirect we follow,
   * its body dropped. The caller's signal and the request's scope (client gone, endpoint budget spent) cancel it too.
   */
  async function exchange(url: URL, call: Call, follow: boolean, ms: number, stop: Stop): Promise<Answer> {
    const { signal, scope } = stop;
    try {
      const res = await wholeAnswer(
        agent.value ?? (await agent.get()),
        { origin: url.origin, path: url.pathname + url.search, method: call.method, headers: call.headers, body: call.body },
        {
          maxBytes: MAX_RESPONSE_BYTES,
          timeoutMs: ms,
          signal,
          scope,
          skipBody: follow ? isRedirect : undefined,
        },
      );
      const location = follow && isRedirect(res.status, res.headers) ? (res.headers.location as string) : undefined;
      // A 5xx the adapter did not allow is a failure to the breaker and to retries, though it is returned.
      const failing = res.status >= 500 && !call.allow?.includes(res.status);
      return { status: res.status, headers: res.headers, body: res.body, url, location, failing };
    } catch (err) {
      if (err === TIMED_OUT) throw upstreamTimeout();
      // Stopped by our side: marked, so the breaker does not count it.
      if ((signal?.aborted && err === signal.reason) || (scope !== undefined && err === scope.cancelled)) throw new Stopped(stopError(err));
      throw err;
    }
  }

  /** An exchange and the redirects it leads to (GET ones by default), the key kept to its own origin. */
  async function chase(start: URL, first: Call, followRedirect: boolean, ms: number, stop: Stop): Promise<Answer> {
    let url = start;
    let call = first;
    for (let hop = 0; ; hop++) {
      const answer = await exchange(url, call, followRedirect, ms, stop);
      if (answer.location === undefined) return answer;
      const next = hop < MAX_REDIRECTS ? httpUrl(answer.location, url) : undefined;
      if (!next) throw upstreamFailed();
      const headers = { ...call.headers };
      if (next.origin !== url.origin) {
        // Like a browser: credentials stay with the origin they were meant for.
        for (const h of ['authorization', 'cookie', ...(keyHeader ? [keyHeader] : [])]) delete headers[h];
      }
      // Only a 303 turns the call into a GET (got's and the RFC's default).
      call =
        answer.status === 303 && call.method !== 'HEAD'
          ? { method: 'GET', headers: withoutBodyHeaders(headers), body: undefined }
          : { ...call, headers };
      url = next;
    }
  }

  /**
   * One call under the upstream's policy, retried on network errors and 5xx when it is idempotent, with
   * jittered backoff, never past the endpoint's deadline.
   */
  async function send(
    url: URL,
    call: Call,
    followRedirect: boolean,
    ms: number,
    stop: Stop,
    /** The request's path as the adapter gave it (a policy's concurrencyFor names such paths). */
    route: string,
    callerKey?: string,
  ): Promise<Answer> {
    // Scrubbed only for a log line: most calls write none.
    const path = () => scrub(url.pathname, callerKey);
    const idempotent = call.method === 'GET';
    const deadline = stop.scope?.deadline;
    let delay: IBackoff<unknown> | undefined;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const left = deadline === undefined ? ms : Math.min(ms, deadline - started);
        if (left <= 0) throw upstreamTimeout();
        const res = await policy.run(() => chase(url, call, followRedirect, left, stop), deadline, route);
        const status = res.status;
        policy.observe(status);
        if (status >= 500) log.warn({ path: path(), status, ms: elapsed(), attempt }, 'upstream answered 5xx');
        else if (debug) log.debug({ path: path(), status, ms: elapsed() }, 'upstream call');
        if (res.failing && idempotent && attempt < retries && (delay = retryDelay(delay, deadline))) {
          await waitBeforeRetry(delay.duration, stop);
          continue;
        }
        return res;
      } catch (caught) {
        const err = caught instanceof Stopped ? caught.inner : (policy.refusal(caught) ?? caught);
        // The policy's own refusals (breaker open, paused, over the rate) are not calls that failed.
        if (err instanceof ApiError && (err.code === 'upstream_unavailable' || err.code === 'upstream_busy')) throw err;
        const code = (err as { code?: string }).code;
        const name = err instanceof ApiError ? err.code : (err as Error).name;
        log.warn({ path: path(), err: code ?? name, ms: elapsed(), attempt }, 'upstream call failed');
        if (code && NETWORK_CODES.has(code) && idempotent && attempt < retries && (delay = retryDelay(delay, deadline))) {
          await waitBeforeRetry(delay.duration, stop);
          continue;
        }
        throw mapError(err);
      }
    }
  }

  function decode(res: Answer, type: UpstreamRequest['responseType'], strict: boolean): unknown {
    if (type === 'buffer') return res.body;
    const text = res.body.toString('utf8');
    if (type === 'text') return text;
    try {
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      if (/^\s*$/.test(text)) return null;
      // A 2xx that is not the JSON it was: the API moved (a parked domain's page) or changed.
      if (strict) throw upstreamChanged('The upstream service answered with malformed data');
      return text;
    }
  }

  function mapStatus(res: Answer, req: UpstreamRequest): ApiError {
    const status = res.status;
    if (status === 404) return notFound(req.notFoundMessage ?? 'Not found upstream');
    if (status === 429) {
      return upstreamBusy(`Upstream ${id} is rate limited; try again later`, throttledFor(res, req) ?? THROTTLED_KEY_COOLDOWN_MS / 1000);
    }
    // Refused although no key was sent: the operator has to configure one.
    if (KEY_REFUSED.has(status)) {
      return auth
        ? notConfigured(`Upstream ${id} needs a key: set UPSTREAM_${ENV}_KEYS`)
        : upstreamFailed('The upstream service refused the request');
    }
    if (status === 408) return upstreamTimeout();
    if (status >= 400 && status < 500) return badInput('The upstream service rejected the request');
    return upstreamFailed();
  }

  async function request<T = unknown>(req: UpstreamRequest, scope?: CancelScope): Promise<UpstreamResponse<T>> {
    if (!base) throw notConfigured(`Upstream ${id} is not configured: set UPSTREAM_${ENV}_URL`);
    const method = req.method ?? 'GET';
    const target = buildUrl(root!, req);
    // Keys only ever go to the configured origin, never to a URL an adapter follows elsewhere.
    const ownOrigin = target.origin === base.origin;
    const follow = req.followRedirect ?? method === 'GET';
    // The pooled keys tried so far: made on the first one, so a call without keys allocates no set.
    let tried: Set<string> | undefined;
    let callerTried = false;

    for (;;) {
      let key: string | undefined;
      let source: 'pool' | 'caller' | 'none' = 'none';
      const pooled = ownOrigin && auth ? pool.take(tried ?? NO_KEYS) : undefined;
      if (pooled) {
        key = pooled;
        source = 'pool';
        (tried ??= new Set()).add(pooled);
      } else if (ownOrigin && auth && req.callerKey && !callerTried) {
        key = req.callerKey;
        source = 'caller';
        callerTried = true;
      } else if (ownOrigin && pool.size > 0) {
        throw upstreamBusy(`Upstream ${id} is rate limited; try again later`, pool.retryAfterSeconds());
      } else if (ownOrigin && auth?.required) {
        throw notConfigured(`Upstream ${id} needs a key: set UPSTREAM_${ENV}_KEYS`);
      }

      // A copy only when the key goes into its query: nothing else changes the URL.
      const url = key && auth?.in === 'query' ? new URL(target) : target;
      const headers: Record<string, string> = { 'user-agent': opts.userAgent, 'accept-encoding': ACCEPT_ENCODING };
      if (req.headers) for (const k in req.headers) headers[k.toLowerCase()] = req.headers[k];
      withKey(url, headers, key);
      // Some upstreams (LibreTranslate, pastebin) read the key from the body.
      const bodyKey = key && (auth?.in === 'json' || auth?.in === 'form') ? { [auth.name!]: key } : NO_FIELDS;
      let json: unknown;
      let form: Record<string, string> | undefined;
      if (req.json !== undefined)
        json = auth?.in === 'json' && isRecord(req.json) && !Buffer.isBuffer(req.json) ? { ...req.json, ...bodyKey } : req.json;
      else if (req.form !== undefined) form = auth?.in === 'form' ? { ...req.form, ...bodyKey } : req.form;
      // A GET has no body: the key stays out (LibreTranslate's /languages needs none).
      else if (auth?.in === 'json' && key && method !== 'GET') json = bodyKey;
      else if (auth?.in === 'form' && key && method !== 'GET') form = bodyKey;
      let body: Buffer | string | undefined = req.body;
      if (json !== undefined) {
        body = JSON.stringify(json);
        headers['content-type'] ??= 'application/json';
      } else if (form !== undefined) {
        body = new URLSearchParams(form).toString();
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
      }

      const res = await send(
        url,
        { method, headers, body, allow: req.allowStatus },
        follow,
        req.timeoutMs ?? timeoutMs,
        { signal: req.signal, scope },
        req.path,
        req.callerKey,
      );
      const status = res.status;

      if (source === 'pool' && (KEY_REFUSED.has(status) || status === 429)) {
        const coolMs = status === 429 ? (throttledFor(res, req) ?? THROTTLED_KEY_COOLDOWN_MS / 1000) * 1000 : REFUSED_KEY_COOLDOWN_MS;
        pool.coolDown(key!, coolMs);
        log.warn({ path: scrub(url.pathname, req.callerKey), status, coolDownS: Math.round(coolMs / 1000) }, 'upstream key cooling down');
        continue;
      }
      // Throttled without a pooled key: the whole upstream waits, rather than every caller asking again.
      if (source === 'none' && status === 429) policy.hold((throttledFor(res, req) ?? THROTTLED_KEY_COOLDOWN_MS / 1000) * 1000);
      if (source === 'caller' && KEY_REFUSED.has(status)) {
        throw badInput('Invalid value for upstream_key: rejected by the upstream provider');
      }

      const allowed = req.allowStatus?.includes(status) ?? false;
      const ok = isSuccess(status);
      const redirectKept = status >= 300 && status < 400 && req.followRedirect === false;
      if (!ok && !allowed && !redirectKept) throw mapStatus(res, req);
      // A used-up quota told inside a 2xx (MyMemory): held like the 429 that names the same wait. The adapter
      // reads the body and answers its caller; the next callers are refused without asking.
      if (ok && source === 'none' && req.waitOf) {
        const wait = boundedWait(req.waitOf, res);
        if (wait !== undefined) policy.hold(wait * 1000);
      }

      return {
        status,
        headers: res.headers,
        body: decode(res, req.responseType ?? 'json', ok) as T,
        url: auth?.in === 'query' ? withoutParam(res.url, auth.name!) : res.url.href,
      };
    }
  }

  return {
    id,
    baseUrl: base ? baseUrl : undefined,
    hasKeys: pool.size > 0,
    settings: settingsWithEnv(cfg.settings ?? {}, env, ENV),
    request: opts.observe ? observed(id, request, opts.observe) : request,
  };
}

/** request() timed and told to the observer, retries and key rotation included. */
function observed(
  id: string,
  request: ScopedUpstream['request'],
  observe: NonNullable<UpstreamsOptions['observe']>,
): ScopedUpstream['request'] {
  return async <T>(req: UpstreamRequest, scope?: CancelScope): Promise<UpstreamResponse<T>> => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const res = await request<T>(req, scope);
      observe(id, 'ok', seconds());
      return res;
    } catch (err) {
      observe(id, err instanceof ApiError ? err.code : 'internal', seconds());
      throw err;
    }
  };
}

/** The URL without one query parameter (the key of an upstream that takes it in the query). */
function withoutParam(url: URL, name: string): string {
  const copy = new URL(url);
  copy.searchParams.delete(name);
  return copy.toString();
}

/** The base URL (`root`: its text without a trailing slash) + path (or an absolute http(s) URL) + search params, skipping undefined values. */
function buildUrl(root: string, req: UpstreamRequest): URL {
  let url: URL;
  if (/^https?:\/\//i.test(req.path)) url = new URL(req.path);
  else {
    const path = req.path === '' || req.path.startsWith('/') || req.path.startsWith('?') ? req.path : `/${req.path}`;
    url = new URL(root + path);
  }
  const sp = req.searchParams;
  if (sp instanceof URLSearchParams) sp.forEach((v, k) => url.searchParams.append(k, v));
  else if (sp) for (const [k, v] of Object.entries(sp)) if (v !== undefined) url.searchParams.append(k, String(v));
  return url;
}

/** A redirect that can be followed: a 3xx of the followed kinds with a Location. */
function isRedirect(status: number, headers: IncomingHttpHeaders): boolean {
  return REDIRECTS.has(status) && typeof headers.location === 'string';
}

/** Retry-After as seconds (delta or HTTP date), bounded; undefined when absent or unreadable. */
function retryAfter(res: Answer): number | undefined {
  const raw = res.headers['retry-after'];
  if (typeof raw !== 'string' || !raw) return undefined;
  const secs = /^\d+$/.test(raw.trim()) ? Number(raw) : (Date.parse(raw) - Date.now()) / 1000;
  if (!Number.isFinite(secs)) return undefined;
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(secs)));
}

/** How long a 429 says to wait: its Retry-After, else what its body names (`waitOf`), within the bounds of Retry-After. */
function throttledFor(res: Answer, req: UpstreamRequest): number | undefined {
  const header = retryAfter(res);
  if (header !== undefined || req.waitOf === undefined) return header;
  return boundedWait(req.waitOf, res);
}

/** The wait an answer's body names, in whole seconds within Retry-After's bound; undefined when it names none. */
function boundedWait(waitOf: NonNullable<UpstreamRequest['waitOf']>, res: Answer): number | undefined {
  const secs = waitOf(res.body.toString('utf8'));
  return secs !== undefined && Number.isFinite(secs) && secs > 0 ? Math.min(MAX_RETRY_AFTER_S, Math.ceil(secs)) : undefined;
}

/** The next backoff, or undefined when it would leave too little of the endpoint's time for another try. */
function retryDelay(previous: IBackoff<unknown> | undefined, deadline: number | undefined): IBackoff<unknown> | undefined {
  const next = previous ? previous.next(undefined) : RETRY_BACKOFF.next();
  if (deadline !== undefined && performance.now() + next.duration + MIN_ATTEMPT_MS > deadline) return undefined;
  return next;
}

/** The pause before a retry; a request stopped meanwhile is not retried. */
async function waitBeforeRetry(ms: number, stop: Stop): Promise<void> {
  await pause(ms, stop.signal, () => stopError(stop.signal!.reason));
  if (stop.scope?.cancelled) throw stopError(stop.scope.cancelled);
}

/** What a stopped exchange answers: the stopper's own ApiError, else a timeout (the deadline, a client gone). */
function stopError(reason: unknown): ApiError {
  return reason instanceof ApiError ? reason : upstreamTimeout();
}

/** A failure of the exchange itself (our timeout and the caller's cancel are ApiErrors already). */
function mapError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof BodyError) {
    return upstreamFailed(
      err.reason === 'too-large'
        ? 'The upstream service answered with more data than allowed'
        : 'The upstream service answered with malformed data',
    );
  }
  const code = (err as { code?: string }).code;
  if (code && TIMEOUT_CODES.has(code)) return upstreamTimeout();
  if (code && NETWORK_CODES.has(code)) return upstreamFailed('The upstream service is unreachable');
  return upstreamFailed();
}

/** `text` as an http(s) URL, relative to `base`; undefined when it is anything else. */
function httpUrl(text: string, base: URL): URL | undefined {
  try {
    const u = new URL(text, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
  return rest;
}

/**
 * An upstream's `settings:` with operator overrides: UPSTREAM_<ID>_<SETTING> (the setting's name in upper
 * snake case) replaces a string or number setting, e.g. UPSTREAM_OPENAI_COMPAT_MODEL for `model`.
 */
function settingsWithEnv(settings: Record<string, unknown>, env: NodeJS.ProcessEnv, id: string): Record<string, unknown> {
  const out = { ...settings };
  for (const [name, value] of Object.entries(settings)) {
    const override = env[`UPSTREAM_${id}_${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`]?.trim();
    if (!override) continue;
    if (typeof value === 'string') out[name] = override;
    else if (typeof value === 'number' && /^\d+(\.\d+)?$/.test(override)) out[name] = Number(override);
  }
  return out;
}
