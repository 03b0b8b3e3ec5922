// What every gen-models endpoint shares: the prompt rule, the key rule and the reading of Pollinations'
// error bodies.
//
// Keys: the upstream client draws pooled server keys (UPSTREAM_POLLINATIONS_KEYS) first, rotating them and
// resting one after a 401/402/403/429; when none is free it sends the caller's `upstream_key`, and a key
// the provider refuses becomes a 400 naming upstream_key. With neither there is nothing to send, so we say
// which parameter is missing before calling anyone.
import { badInput, missingParam, upstreamFailed, type ApiError, type AdapterContext, type UpstreamClient } from '../../engine/adapter.js';
import type { ChatParams } from './_catalog.js';

const UPSTREAM = 'pollinations';

/** q is optional in the spec, but there is nothing to generate without it (docs/decisions/adapters-ai-generation-downloaders.md). */
export function promptOf(params: Pick<ChatParams, 'q'>): string {
  const q = params.q?.trim() ?? '';
  if (!q) throw missingParam('q');
  return q;
}

/** The client and the caller's key to fall back on; a 400 when there is no key of any kind. */
export function pollinations(
  params: Pick<ChatParams, 'upstream_key'>,
  ctx: AdapterContext<typeof UPSTREAM>,
): { client: UpstreamClient; callerKey: string | undefined } {
  const client = ctx.upstream(UPSTREAM);
  const callerKey = params.upstream_key?.trim() || undefined;
  if (!client.hasKeys && !callerKey) throw missingParam('upstream_key');
  return { client, callerKey };
}

/** A setting of catalog/upstreams.yaml (pollinations → settings), with a default when it is missing. */
export function setting<T>(client: UpstreamClient, path: string[], fallback: T): T {
  let v: unknown = client.settings;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return (v === undefined || v === null || v === '' ? fallback : v) as T;
}

/** `/image/{prompt}` with the prompt as one encoded path segment. */
export function promptPath(template: string, prompt: string): string {
  // A prompt of dots alone would become `.` or `..` segments, which URL parsing swallows.
  if (/^[.\s]+$/.test(prompt)) throw badInput('Invalid value for q: must describe what to generate');
  return template.replace('{prompt}', encodeURIComponent(prompt));
}

/** The message of a Pollinations error body (`{error:{code,message}}`, `{error:"…"}` or `{message}`). */
export function errorText(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 500);
  const b = (body ?? {}) as Record<string, unknown>;
  const e = b.error;
  if (typeof e === 'string') return e;
  if (typeof e === 'object' && e !== null) {
    const o = e as Record<string, unknown>;
    return [o.code, o.message].filter((x) => typeof x === 'string').join(' ');
  }
  return typeof b.message === 'string' ? b.message : '';
}

const MODEL_TROUBLE = /\bmodel\b/i;

/**
 * A 400 or 404 of Pollinations. A 404, or a 400 about the model, means our binding or path drifted (502,
 * the operator's to fix); any other 400 is the provider turning the prompt down (400, the caller's).
 */
export function refusal(status: number, body: unknown, what: string): ApiError {
  const text = errorText(body);
  if (status === 404 || MODEL_TROUBLE.test(text)) return upstreamFailed(`The upstream ${what} model or path is not available`);
  return badInput('The upstream provider rejected the prompt');
}
