// What tmail-gen needs of mail.tm's API besides its calls: its active domains, kept ten minutes (they
// change rarely). mail.tm allows 8 requests/s per IP and one mailbox costs three: the mailtm upstream's
// policy (catalog/upstreams.yaml) bounds the account creations in flight.
import { isRecord, malformed, type AdapterContext } from '../../engine/adapter.js';

const DOMAINS_TTL_MS = 10 * 60_000;

/** Active domains; mail.tm answers Hydra JSON-LD ({"hydra:member": [...]}) or, with Accept: json, an array. */
export function activeDomains(ctx: AdapterContext<'mailtm'>): Promise<string[]> {
  return ctx.memo('mailtm:domains', DOMAINS_TTL_MS, async (upstream) => {
    const { body } = await upstream('mailtm').request({ path: '/domains' });
    const members = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body['hydra:member']) ? body['hydra:member'] : undefined;
    if (!members) throw malformed();
    const domains = members
      .filter(isRecord)
      .filter((d) => d.isActive !== false && typeof d.domain === 'string' && /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(d.domain))
      .map((d) => String(d.domain).toLowerCase());
    if (!domains.length) throw malformed();
    return domains;
  });
}
