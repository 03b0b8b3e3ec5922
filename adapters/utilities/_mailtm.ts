// What tmail-gen needs around mail.tm's API: its active domains (a short in-module memo, they change
// rarely), and a bound on account creations in flight, since mail.tm allows 8 requests/s per IP and one
// mailbox costs three.
import { upstreamBusy, isRecord, malformed, type AdapterContext } from '../../engine/adapter.js';

const DOMAINS_TTL_MS = 10 * 60_000;
let domainsMemo: { base: string; domains: string[]; at: number } | undefined;

/** Active domains; mail.tm answers Hydra JSON-LD ({"hydra:member": [...]}) or, with Accept: json, an array. */
export async function activeDomains(ctx: AdapterContext): Promise<string[]> {
  const api = ctx.upstream('mailtm');
  const base = api.baseUrl ?? '';
  if (domainsMemo && domainsMemo.base === base && Date.now() - domainsMemo.at < DOMAINS_TTL_MS) return domainsMemo.domains;
  const { body } = await api.request({ path: '/domains' });
  const members = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body['hydra:member']) ? body['hydra:member'] : undefined;
  if (!members) throw malformed();
  const domains = members
    .filter(isRecord)
    .filter((d) => d.isActive !== false && typeof d.domain === 'string' && /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(d.domain))
    .map((d) => String(d.domain).toLowerCase());
  if (!domains.length) throw malformed();
  domainsMemo = { base, domains, at: Date.now() };
  return domains;
}

const MAX_FLOWS = 2;
const MAX_WAITING = 20;
let running = 0;
const waiting: Array<() => void> = [];

/** Runs `work` when fewer than MAX_FLOWS others run; a long queue is a 503 rather than a pile-up. */
export async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_FLOWS) {
    if (waiting.length >= MAX_WAITING) throw upstreamBusy('Too many mailboxes are being created; try again shortly', 2);
    await new Promise<void>((go) => waiting.push(go));
  } else running++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next in line, or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}
