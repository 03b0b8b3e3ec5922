// The state of one API request as it moves through the lifecycle's steps, kept on `res.locals.call`: one
// object of one shape (Express's res.locals is a prototype-less bag that every property reshapes), and the
// one place an answered request is logged and counted.
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { ApiError } from './errors.js';
import type { Identity } from './identify.js';
import type { AdapterData, Params, UploadedFile } from './types.js';

/** What the caller sent, read by the parse step (engine/steps/parse.ts). */
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
  /** `data` serialised, when the response cache holds it so (engine/respond.ts answerCodec): sent as it is. */
  dataJson?: string;
}

/** Sees every answered request: the access log and the metrics (engine/app.ts). */
export type CallObserver = (call: Call, status: number) => void;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export class Call {
  /** The caller's X-Request-Id when it is sane, otherwise a new one. */
  readonly id: string;
  readonly startedAt = performance.now();
  /** The query string, parsed once (Express 5 parses it again on every read of req.query). */
  readonly query: Record<string, unknown>;
  identity: Identity | undefined;
  /** The counter a known key's request was counted on (the usage history's partition). */
  meterKey: string | undefined;
  input: ParsedInput | undefined;
  /** The validated parameters (engine/steps/validate.ts). */
  params: Params | undefined;
  /** The answer's content (engine/steps/cache.ts, invoke.ts), written by engine/steps/envelope.ts. */
  outcome: Outcome | undefined;
  /** Gives the request back to its allowance; set once it is counted, called for a 5xx. */
  refund: (() => void | Promise<void>) | undefined;
  private isAnswered = false;

  constructor(readonly endpoint: string, readonly method: string, readonly req: Request, private readonly observe: CallObserver) {
    const given = req.headers['x-request-id'];
    this.id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    this.query = req.query as Record<string, unknown>;
  }

  get elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** True once an answer is on its way (it leaves at the end of the event-loop turn). */
  get answered(): boolean {
    return this.isAnswered;
  }

  /** Called once, as the answer is written. */
  done(status: number): void {
    if (this.isAnswered) return;
    this.isAnswered = true;
    this.observe(this, status);
  }
}

export function callOf(res: Response): Call {
  return res.locals.call as Call;
}

/** The call of an API request, or undefined for other pages (hosted files, /health). */
export function maybeCallOf(res: Response): Call | undefined {
  return res.locals.call as Call | undefined;
}
