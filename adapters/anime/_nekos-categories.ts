// nekos.best's category list (`GET /endpoints` → {"neko":{"format":"png"},"hug":{"format":"gif"}}), kept a
// few hours (ctx.memo): it changes rarely, and every category call is checked against it. Concurrent
// callers share one fetch; a failed fetch is forgotten so the next call retries.
import { type AdapterContext, isRecord, malformed } from '../../engine/adapter.js';

const TTL_MS = 6 * 3600_000;

export function nekosCategories<U extends string>(ctx: AdapterContext<U>, upstreamId: U): Promise<Map<string, string>> {
  return ctx.memo(`${upstreamId}:categories`, TTL_MS, async (upstream) => {
    const { body } = await upstream(upstreamId).request({ path: '/endpoints' });
    if (!isRecord(body)) throw malformed();
    const out = new Map<string, string>();
    for (const [name, v] of Object.entries(body)) out.set(name, isRecord(v) && typeof v.format === 'string' ? v.format : 'unknown');
    if (out.size === 0) throw malformed();
    return out;
  });
}
