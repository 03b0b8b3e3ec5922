// A memo for a pure function of a string that requests call with few distinct arguments (counter keys,
// catalog names): each is computed once, and the memo is bounded, so a stream of distinct arguments costs
// memory up to the bound and no more.

// Stryker disable all: a memo (what it answers is what `make` answers; when it forgets is unobservable)
/** `make`, remembered for up to 50,000 distinct arguments at a time: a request computes nothing twice. */
export function remembered<T extends NonNullable<unknown>>(make: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    let v = seen.get(key);
    if (v === undefined) {
      if (seen.size > 50_000) seen.clear();
      seen.set(key, (v = make(key)));
    }
    return v;
  };
}
// Stryker restore all

// Stryker disable all: a memo (what it answers is what `make` answers)
/**
 * `make`, its last answer remembered: for an argument that comes again and again in a row (a busy caller's
 * key, address, endpoint), answered without a look-up in a table the rest of a request has pushed out of the
 * CPU's caches.
 */
export function rememberedLast<K, T>(make: (key: K) => T): (key: K) => T {
  let lastKey: K | undefined;
  let last: T | undefined;
  let any = false;
  return (key) => {
    if (!any || key !== lastKey) {
      last = make(key);
      lastKey = key;
      any = true;
    }
    return last as T;
  };
}
// Stryker restore all
