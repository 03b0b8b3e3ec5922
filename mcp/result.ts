// The REST answer as a tool result. 2xx: the envelope's `data` as structuredContent (and as JSON text,
// for clients that read text only), media as content (mcp/media.ts), the rest of the envelope and the
// allowance in _meta. 4xx/5xx: a tool error carrying the envelope's message, the spec's words, plus when
// to come back where the answer says (a 429's reset, a busy upstream's Retry-After).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Injected, Injector } from './inject.js';
import { mediaContent } from './media.js';

interface Envelope {
  success?: boolean;
  creator?: string;
  source?: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  error?: string;
  code?: string;
}

export async function toolResult(answer: Injected, publicUrl: string, inject: Injector, now = Date.now()): Promise<CallToolResult> {
  const body = parse(answer);
  const rateLimit = allowanceOf(answer);
  if (answer.statusCode >= 200 && answer.statusCode < 300 && body?.success && body.data) {
    const { data, ...envelope } = body;
    return {
      structuredContent: data,
      content: [{ type: 'text', text: JSON.stringify(data) }, ...(await mediaContent(data, publicUrl, inject))],
      _meta: { ...envelope, ...(rateLimit ? { rateLimit } : {}) },
    };
  }
  const message = body?.error ?? `The endpoint answered HTTP ${answer.statusCode}`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${message}${whenToRetry(answer, now)}` }],
    _meta: { status: answer.statusCode, ...(body?.code ? { code: body.code } : {}), ...(rateLimit ? { rateLimit } : {}) },
  };
}

function parse(answer: Injected): Envelope | undefined {
  if (!String(answer.headers['content-type'] ?? '').includes('json')) return undefined;
  try {
    return answer.json<Envelope>();
  } catch {
    return undefined;
  }
}

function header(answer: Injected, name: string): number | undefined {
  const v = Number(answer.headers[name]);
  return Number.isFinite(v) && String(answer.headers[name] ?? '') !== '' ? v : undefined;
}

function allowanceOf(answer: Injected) {
  const limit = header(answer, 'x-ratelimit-limit');
  const remaining = header(answer, 'x-ratelimit-remaining');
  const reset = header(answer, 'x-ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, resetAt: new Date(reset * 1000).toISOString() };
}

/** " The allowance resets at … (in N s)." for a 429; " Try again in N s." where Retry-After says so. */
function whenToRetry(answer: Injected, now: number): string {
  const reset = header(answer, 'x-ratelimit-reset');
  const retryAfter = header(answer, 'retry-after');
  if (answer.statusCode === 429 && reset !== undefined) {
    const seconds = retryAfter ?? Math.max(0, Math.ceil(reset - now / 1000));
    return ` The allowance resets at ${new Date(reset * 1000).toISOString()} (in ${seconds} s).`;
  }
  return retryAfter !== undefined ? ` Try again in ${retryAfter} s.` : '';
}
