// Domain registration data over RDAP. rdap.org answers every query with a 302 to the registry that
// serves the TLD (found through IANA's bootstrap file); the upstream client follows it. A 404 therefore
// means two things: from the registry, "no such registration" (registered:false, a hint only: some
// registries hide reserved names), and from rdap.org itself, "no RDAP service for this TLD" (404 to us).
// We tell them apart by the URL that answered.
import { getDomain } from 'tldts';
import { invalidParam, notFound, isRecord, record, type Rec, hostOfDomain } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const list = (x: unknown): Rec[] => (Array.isArray(x) ? x.filter(isRecord) : []);
const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);

function eventDate(events: Rec[], ...actions: string[]): string | null {
  const e = events.find((ev) => typeof ev.eventAction === 'string' && actions.includes(ev.eventAction.toLowerCase()));
  return typeof e?.eventDate === 'string' ? e.eventDate : null;
}

/** The vCard `fn` of the first entity with the registrar role, searched depth-first through nested entities. */
function registrar(entities: Rec[]): string | null {
  for (const e of entities) {
    if (strings(e.roles).includes('registrar')) {
      const card: unknown = Array.isArray(e.vcardArray) ? e.vcardArray[1] : undefined;
      const fn: unknown = Array.isArray(card) ? card.find((p) => Array.isArray(p) && p[0] === 'fn') : undefined;
      if (Array.isArray(fn) && typeof fn[3] === 'string' && fn[3].trim()) return fn[3].trim();
    }
    const inner = registrar(list(e.entities));
    if (inner) return inner;
  }
  return null;
}

const dmn: Adapter<'utilities/dmn'> = async (params, ctx) => {
  const host = hostOfDomain(params.domain);
  const domain = host ? getDomain(host) : null;
  if (!domain) throw invalidParam('domain', 'must be a registrable domain name such as example.com');
  const api = ctx.upstream('rdap');
  const res = await api.request({
    path: `/domain/${domain}`,
    headers: { accept: 'application/rdap+json, application/json' },
    allowStatus: [404],
  });

  if (res.status === 404) {
    const answeredBy = new URL(res.url).origin;
    if (api.baseUrl && answeredBy === new URL(api.baseUrl).origin) {
      throw notFound(`No RDAP service is known for the top-level domain of ${domain}`);
    }
    return {
      domain,
      registered: false,
      registrar: null,
      status: [],
      created: null,
      updated: null,
      expires: null,
      nameservers: [],
      dnssec: null,
    };
  }

  const r = record(res.body);
  const events = list(r.events);
  const secure = isRecord(r.secureDNS) ? r.secureDNS.delegationSigned : undefined;
  return {
    domain: typeof r.ldhName === 'string' ? r.ldhName.toLowerCase() : domain,
    registered: true,
    registrar: registrar(list(r.entities)),
    status: strings(r.status),
    created: eventDate(events, 'registration'),
    updated: eventDate(events, 'last changed'),
    expires: eventDate(events, 'expiration'),
    nameservers: list(r.nameservers)
      .map((n) => n.ldhName)
      .filter((n): n is string => typeof n === 'string')
      .map((n) => n.toLowerCase()),
    dnssec: typeof secure === 'boolean' ? secure : null,
  };
};

export default dmn;
