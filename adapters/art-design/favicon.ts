// Favicon URLs of a domain, built without fetching anything: the domain is normalised (scheme, `www.`,
// path, port and credentials stripped; IDN to punycode) and handed to public favicon services.
// A host without a public suffix (intranet names, `.local`, IP addresses) has no favicon those services
// could know, so it is a 400.
import { parse } from 'tldts';
import { invalidParam } from '../../engine/errors.js';
import type { Adapter } from '../../engine/types.js';

export function normaliseDomain(input: string): string | undefined {
  const raw = input.trim();
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/\.$/, '').replace(/^www\./, '');
  const info = parse(host);
  if (info.isIp || !info.isIcann || !info.domain) return undefined;
  return host;
}

const favicon: Adapter = async (params) => {
  const domain = normaliseDomain(String(params.domain));
  if (!domain) throw invalidParam('domain', 'must be a public domain name such as example.com');
  const q = encodeURIComponent(domain);
  return {
    domain,
    favicon: `https://icon.horse/icon/${domain}`,
    alternatives: {
      google: `https://www.google.com/s2/favicons?domain=${q}&sz=64`,
      duckduckgo: `https://icons.duckduckgo.com/ip3/${domain}.ico`,
      direct: `https://${domain}/favicon.ico`,
    },
  };
};

export default favicon;
