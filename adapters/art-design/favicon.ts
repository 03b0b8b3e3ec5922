// Favicon URLs of a domain, built without fetching anything: the domain is normalised (scheme, `www.`,
// path, port and credentials stripped; IDN to punycode) and handed to public favicon services.
// A host without a public suffix (intranet names, `.local`, IP addresses) has no favicon those services
// could know, so it is a 400.
import { parse } from 'tldts';
import { invalidParam, hostOfDomain } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

export function normaliseDomain(input: string): string | undefined {
  const host = hostOfDomain(input, { stripWww: true });
  const info = host ? parse(host) : undefined;
  return info && info.isIcann && info.domain ? host : undefined;
}

const favicon: Adapter<'art-design/favicon'> = async (params) => {
  const domain = normaliseDomain(params.domain);
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
