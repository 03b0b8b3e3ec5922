// What a caller types as a "domain" (https://www.Shop.example/path?x, shop.example:443, bücher.example.)
// reduced to a host name: no scheme, user info, port, path or trailing dot, lower case, punycode (the
// WHATWG URL parser applies IDNA). Used by every endpoint that takes a domain.
import { domainToASCII } from 'node:url';

// Labels of letters, digits and inner hyphens; the last (the top-level domain) starts with a letter.
const LABELS = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,62}$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const WEB_SCHEME = /^https?:\/\//i;

/** The host name, or undefined when there is none (an IP address, a single label, junk). */
export function hostOfDomain(input: string, opts: { stripWww?: boolean } = {}): string | undefined {
  const raw = input.trim();
  // A scheme, when given, is a web one: ftp://example.com names a server, not a domain.
  const hasScheme = SCHEME.test(raw);
  if (hasScheme && !WEB_SCHEME.test(raw)) return undefined;
  const withScheme = hasScheme ? raw : `http://${raw}`;
  let host: string;
  try {
    host = new URL(withScheme).hostname;
  } catch {
    return undefined;
  }
  host = domainToASCII(host.replace(/\.$/, '')).toLowerCase();
  if (opts.stripWww) host = host.replace(/^www\./, '');
  // Dotted quads pass LABELS' shape but are addresses, not domains.
  if (!LABELS.test(host) || /^[\d.]+$/.test(host)) return undefined;
  return host;
}
