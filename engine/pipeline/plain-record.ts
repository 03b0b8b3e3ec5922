// A record of the caller's keys (a query, the merged parameters) that inherits none: `__proto__`,
// `constructor` or `toString` sent as names are the caller's like any other. Object.create(null) gives that,
// but V8 keeps such an object as a dictionary: adding and reading its keys, and walking them, cost several
// times what they cost on an object whose prototype is itself empty and prototype-less (figures:
// docs/decisions/engine-request-path.md, "A call's query and merged parameters").
const NOTHING_INHERITED: object = Object.freeze(Object.create(null) as object);

export function plainRecord<T>(): Record<string, T> {
  return Object.create(NOTHING_INHERITED) as Record<string, T>;
}
