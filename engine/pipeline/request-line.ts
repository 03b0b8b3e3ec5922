// The path and query of an API request, read from the request line the way parseurl and node:querystring
// read them, with a short way for the plain case every well-formed call takes. parseurl builds a whole Url
// object and querystring.parse handles percent-escapes, `+` and a key limit, a visible share of the engine's
// work per request, most of which the short way saves (figures: docs/decisions/engine-request-path.md, "Plain
// request targets read directly"). Anything out of the plain case goes to the libraries; tests/engine/pipeline/request-line.test.ts
// checks that both ways agree on thousands of generated lines.
import querystring from 'node:querystring';
import { plainRecord } from './plain-record.js';

/**
 * The pathname and search (after `?`, null when none) of a request target in origin form, as parseurl's own
 * fast path reads it; undefined when parseurl has to be asked (not starting with `/`, or holding a
 * character that parseurl hands to url.parse: whitespace, `#`, U+00A0, U+FEFF).
 */
export function plainTarget(url: string): { pathname: string; search: string | null } | undefined {
  // One regular expression rather than a loop over the characters, measured faster for a call's target
  // (docs/decisions/engine-request-path.md).
  if (url.charCodeAt(0) !== 0x2f || NOT_PLAIN.test(url)) return undefined;
  const cut = url.indexOf('?');
  return cut < 0 ? { pathname: url, search: null } : { pathname: url.slice(0, cut), search: url.slice(cut + 1) };
}

/** What parseurl's fast path hands to url.parse: whitespace, `#`, U+00A0, U+FEFF. */
const NOT_PLAIN = /[\t\n\f\r #\u00a0\ufeff]/;

/** querystring.parse's default limit on the number of keys. */
const MAX_PAIRS = 1000;

/**
 * A query string as querystring.parse reads it (a repeated name gives a list, in order; no key inherited,
 * engine/pipeline/plain-record.ts). Without `%` or `+` nothing is decoded, so the pairs are cut out directly.
 */
export function parseQuery(search: string): querystring.ParsedUrlQuery {
  if (search.includes('%') || search.includes('+')) return querystring.parse(search);
  const out = plainRecord<string | string[]>() as querystring.ParsedUrlQuery;
  let pairs = 0;
  let at = 0;
  while (at <= search.length) {
    let end = search.indexOf('&', at);
    if (end < 0) end = search.length;
    if (end > at) {
      if (++pairs > MAX_PAIRS) return querystring.parse(search);
      const eq = search.indexOf('=', at);
      const key = eq < 0 || eq > end ? search.slice(at, end) : search.slice(at, eq);
      const value = eq < 0 || eq > end ? '' : search.slice(eq + 1, end);
      const seen = out[key];
      if (seen === undefined) out[key] = value;
      else if (Array.isArray(seen)) seen.push(value);
      else out[key] = [seen, value];
    }
    at = end + 1;
  }
  return out;
}
