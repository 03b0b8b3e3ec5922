// Small shape helpers of the books adapters, on top of the engine's (engine/upstream/shape.ts, which adapters
// reach through engine/adapter.ts): a body of the wrong shape is the provider's failure, one 502 with one message.
export { isRecord, malformed, type Rec } from '../../engine/adapter.js';

/** A trimmed non-empty string, else null. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** `?page=N` of a paging URL, or null. */
export function pageOf(url: unknown): number | null {
  if (typeof url !== 'string') return null;
  try {
    const p = new URL(url, 'http://x').searchParams.get('page');
    return p && /^\d+$/.test(p) ? Number(p) : null;
  } catch {
    return null;
  }
}
