// What adapters keep between requests of one server: an upstream's language list, its active domains, a
// category index. One bounded LRU (lru-cache) per app, so nothing lives in an adapter's module and
// servers made side by side (tests, the bench) never share an entry.
import { LRUCache } from 'lru-cache';

/** `ttlMs` may depend on the value loaded (a missing list is asked for again sooner than a good one). */
export type Memo = <T>(key: string, ttlMs: number | ((value: T) => number), load: () => Promise<T>) => Promise<T>;

/** A memo of at most `max` entries. A load that fails is not kept; concurrent callers share one load. */
export function createMemo(max = 500): Memo {
  const cache = new LRUCache<string, { value: Promise<unknown> }>({ max });
  return <T>(key: string, ttlMs: number | ((value: T) => number), load: () => Promise<T>): Promise<T> => {
    const hit = cache.get(key);
    if (hit) return hit.value as Promise<T>;
    const entry = { value: load() as Promise<unknown> };
    // Kept while loading (callers share it), then for its time to live.
    cache.set(key, entry, { ttl: typeof ttlMs === 'number' ? ttlMs : 0 });
    entry.value.then(
      (value) => {
        if (typeof ttlMs !== 'number' && cache.peek(key) === entry) cache.set(key, entry, { ttl: ttlMs(value as T) });
      },
      () => {
        if (cache.peek(key) === entry) cache.delete(key);
      },
    );
    return entry.value as Promise<T>;
  };
}
