// nekos.best's category list (`GET /endpoints` → {"neko":{"format":"png"},"hug":{"format":"gif"}}), kept in
// memory for a few hours per upstream base URL: it changes rarely, and every category call is checked
// against it. Concurrent callers share one fetch; a failed fetch is forgotten so the next call retries.
import { type UpstreamClient, isRecord, malformed } from '../../engine/adapter.js';

const TTL_MS = 6 * 3600_000;
const memo = new Map<string, { expires: number; list: Promise<Map<string, string>> }>();

export function nekosCategories(api: UpstreamClient): Promise<Map<string, string>> {
  const key = api.baseUrl ?? '';
  const hit = memo.get(key);
  if (hit && hit.expires > Date.now()) return hit.list;
  // No caller's signal here: one caller hanging up must not fail the others waiting on the same fetch.
  const list = api.request({ path: '/endpoints' }).then(({ body }) => {
    if (!isRecord(body)) throw malformed();
    const out = new Map<string, string>();
    for (const [name, v] of Object.entries(body)) out.set(name, isRecord(v) && typeof v.format === 'string' ? v.format : 'unknown');
    if (out.size === 0) throw malformed();
    return out;
  });
  memo.set(key, { expires: Date.now() + TTL_MS, list });
  list.catch(() => memo.delete(key));
  return list;
}
