// A parameter the catalog requires only in some cases (`requiredWhen:`, or a rule's `require:`), read where
// the adapter knows the case holds. The catalog's check has refused a request without it already; the type in
// adapters/<category>/_catalog.ts cannot tell which case holds, so the param stays optional there. This says
// so in one word, and answers the 400 the rule gives should the adapter and the catalog ever disagree.
import { missingParam } from '../errors.js';

export function required<P extends object, K extends keyof P & string>(params: P, name: K): NonNullable<P[K]> {
  const value = params[name];
  if (value === undefined || value === null) throw missingParam(name);
  return value;
}
