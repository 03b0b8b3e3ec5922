// Small shape checks shared by the books adapters: upstream bodies are checked before they are read,
// and a body of the wrong shape is one 502 with one message.
import { upstreamFailed } from '../../engine/errors.js';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const malformed = () => upstreamFailed('The upstream service answered with an unexpected shape');

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
