// The state of one API request as it moves through the lifecycle's steps (engine/pipeline/steps/): one object of
// one shape, holding the node:http request and response it answers, and the one place an answered
// request is logged and counted. The API is served by node:http directly (engine/pipeline/api.ts), not by
// Express: the call carries the few things the steps need of a request (path, query, client address).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import type { Identity } from '../access/identify.js';
import { clientAddress } from '../access/trust-proxy.js';
import { parseQuery } from './request-line.js';
import { CONTRACT_VERSION, VERSION_HEADER } from '../contract-version.js';
import type { AdapterData, Params, UploadedFile } from '../types.js';
import { CALLERS_REQUEST_ID, timeOrderedId } from '../request-id.js';

/** A request as the body parsers leave it (express.json and urlencoded set `body`, multer `files`). */
export type ApiRequest = IncomingMessage & { body?: unknown; files?: unknown };

/** What the caller sent, read by the parse step (engine/pipeline/steps/parse.ts). */
export interface ParsedInput {
  /** Merged raw values, body over query; only string values or hostile shapes kept as they came. */
  raw: Record<string, unknown>;
  files: Record<string, UploadedFile>;
  /** A body that could not be read: kept, and raised only after metering so the answer has the headers. */
  error?: ApiError;
}

/** What the adapter (or the cache) produced, ready for the envelope. */
export interface Outcome {
  data: AdapterData;
  source: string;
  media?: { bytes: Buffer; contentType: string };
  cacheable: boolean;
  cached: boolean;
  /** `data` serialised, when the response cache holds it so (engine/pipeline/respond.ts answerCodec): sent as it is. */
  dataJson?: string;
}

/** One provider asked for a call's answer, in the order they were tried (engine/pipeline/steps/invoke.ts). */
export interface ProviderAttempt {
  upstream: string;
  /** The HTTP status this provider's try would have answered (200 for its answer). */
  status: number;
  /** Its error code, when it failed. */
  code?: string;
  /** Milliseconds from its start to its answer or failure, to the hundredth. */
  ms: number;
  /** True when its circuit breaker refused the call without asking it. */
  breaker?: boolean;
}

/** The providers a call asked, in order, as a list (the one that answered alone included); null for none. */
export function providersAsked(call: Pick<Call, 'attempts' | 'answeredBy' | 'answeredIn'>): ProviderAttempt[] | null {
  if (call.answeredBy !== undefined) return [{ upstream: call.answeredBy, status: 200, ms: call.answeredIn / 100 }];
  return call.attempts?.length ? call.attempts : null;
}

/**
 * Sees every answered request (the access log, metrics, usage, the request log: server/app.ts): the calls whose
 * answers were written in one turn of the event loop, in the order they were given, once they are written.
 */
export type CallObserver = (calls: readonly Call[]) => void;

/** What every call of one app shares: who observes answers, and which proxies are trusted (TRUST_PROXY). */
export interface CallSite {
  observe: CallObserver;
  /** Express's compiled `trust proxy` function, so the client address is the one Express would give. */
  trust: (addr: string, i: number) => boolean;
}

export class Call {
  /** The caller's X-Request-Id when it is sane, otherwise a new one (engine/request-id.ts). */
  readonly id: string;
  /** Whether the id is the caller's own. */
  readonly idGiven: boolean;
  readonly startedAt = performance.now();
  readonly method: string;
  /** The query string as it came, without its `?` ('' when there is none). */
  readonly search: string;
  /** The query string, parsed as Express's `simple` parser does (a repeated name gives a list). */
  readonly query: Record<string, unknown>;
  identity: Identity | undefined;
  /** The usage history's partition a known key's request is recorded in (set by the meter). */
  usageKey: string | undefined;
  input: ParsedInput | undefined;
  /** The validated parameters (engine/pipeline/steps/validate.ts). */
  params: Params | undefined;
  /** The answer's content (engine/pipeline/steps/cache.ts, invoke.ts), written by engine/pipeline/steps/envelope.ts. */
  outcome: Outcome | undefined;
  /**
   * The providers the invoke step asked, in order, when any failed or timed out (undefined for a call answered
   * before it, from the cache, or by the first provider it asked: answeredBy).
   */
  attempts: ProviderAttempt[] | undefined;
  /** The provider that answered when it was the only one asked: its upstream (no list made for the common case). */
  answeredBy: string | undefined;
  /** answeredBy's time from its start to its answer, in hundredths of a ms. */
  answeredIn = 0;
  /** The error code of a failed answer (engine/pipeline/respond.ts), for the endpoint's health. */
  errorCode: string | undefined;
  /** The error envelope's message of a failed answer (engine/pipeline/respond.ts). */
  errorMessage: string | undefined;
  /** The answer's body in bytes (engine/pipeline/respond.ts). */
  bytesOut = 0;
  /** Gives the request back to its allowance; set once it is counted, called for a 5xx. */
  refund: (() => void | Promise<void>) | undefined;
  /** The answer's headers as name, value, name, value: written in one go with the answer (engine/pipeline/respond.ts). */
  readonly headers: string[];
  private isAnswered = false;
  private answerStatus = 0;
  private tookMs: number | undefined;
  private clientIp: string | undefined;

  /** `search`: the query string without its `?` (null when there is none). */
  constructor(
    readonly endpoint: string,
    readonly path: string,
    search: string | null,
    readonly req: ApiRequest,
    readonly res: ServerResponse,
    readonly site: CallSite,
  ) {
    const given = req.headers['x-request-id'];
    this.idGiven = typeof given === 'string' && CALLERS_REQUEST_ID.test(given);
    this.id = this.idGiven ? (given as string) : timeOrderedId(Date.now());
    this.method = req.method ?? 'GET';
    this.search = search ?? '';
    this.query = parseQuery(this.search);
    // The contract's version is a constant: naming it costs one more pair in the array written with the answer.
    this.headers = ['X-Request-Id', this.id, 'X-Content-Type-Options', 'nosniff', VERSION_HEADER, CONTRACT_VERSION];
  }

  header(name: string, value: string): void {
    this.headers.push(name, value);
  }

  /** Milliseconds since the request came in; once the clock is stopped, those it took. */
  get elapsedMs(): number {
    return this.tookMs ?? performance.now() - this.startedAt;
  }

  /** Stops the call's clock, once: the milliseconds it took, one reading for the envelope, the log, metrics and usage. */
  stopClock(): number {
    return (this.tookMs ??= performance.now() - this.startedAt);
  }

  /** The client's address (engine/access/trust-proxy.ts), read once. */
  get ip(): string | undefined {
    return (this.clientIp ??= clientAddress(this.req, this.site.trust));
  }

  /** True once an answer is on its way (it leaves at the end of the event-loop turn). */
  get answered(): boolean {
    return this.isAnswered;
  }

  /** The answer's HTTP status once answered (0 before). */
  get status(): number {
    return this.answerStatus;
  }

  /** Called once, as the answer is given: its status, and its time stopped. */
  done(status: number): void {
    if (this.isAnswered) return;
    this.isAnswered = true;
    this.answerStatus = status;
    this.stopClock();
  }
}
