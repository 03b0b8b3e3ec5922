// cobalt first, a keyless public provider when cobalt is not configured or fails (dl-d tikwm, dl-e
// FxTwitter). When both fail, the caller hears the more telling answer: a 4xx from either (a bad link, a
// missing post) before a 5xx, cobalt's before the fallback's.
import { ApiError, type AdapterContext, type Reply } from '../../engine/adapter.js';
import { cobalt, cobaltConfigured, COBALT } from './_cobalt.js';
import { downloadReply, type Download } from './_media.js';

export async function cobaltThen(ctx: AdapterContext, url: string, fallbackId: string, fallback: () => Promise<Download>): Promise<Reply> {
  if (!cobaltConfigured(ctx)) return downloadReply(await fallback(), fallbackId);
  let first: unknown;
  try {
    return downloadReply(await cobalt(ctx, url), COBALT);
  } catch (err) {
    // Our caller is gone or the endpoint's time is up: no point in a second provider.
    if (ctx.signal.aborted) throw err;
    first = err;
    ctx.log.warn({ code: err instanceof ApiError ? err.code : 'internal' }, `cobalt failed; trying ${fallbackId}`);
  }
  try {
    return downloadReply(await fallback(), fallbackId);
  } catch (second) {
    const isClientError = (e: unknown) => e instanceof ApiError && e.status < 500;
    throw [first, second].find(isClientError) ?? second;
  }
}
