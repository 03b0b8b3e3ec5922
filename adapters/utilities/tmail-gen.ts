// A new disposable mailbox at mail.tm: pick an active domain, create an account with a random address
// and password (a taken address is a 422: try another), then get its bearer token. The answer holds
// secrets, so it is never cached and never logged; the caller reads mail with the token directly at
// mail.tm (inbox.list / inbox.read).
import crypto from 'node:crypto';
import { upstreamFailed, upstreamChanged, record, reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { activeDomains } from './_mailtm.js';

const ATTEMPTS = 3;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function localPart(): string {
  const bytes = crypto.randomBytes(10);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

async function createMailbox(ctx: AdapterContext<'mailtm'>) {
  const api = ctx.upstream('mailtm');
  const domains = await activeDomains(ctx);
  const password = crypto.randomBytes(18).toString('base64url');
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const address = `${localPart()}@${domains[crypto.randomInt(domains.length)]}`;
    const created = await api.request({ path: '/accounts', method: 'POST', json: { address, password }, allowStatus: [422] });
    if (created.status === 422) continue; // address taken (or refused): another random one
    const { body } = await api.request({ path: '/token', method: 'POST', json: { address, password } });
    const token = record(body).token;
    if (typeof token !== 'string' || !token) throw upstreamChanged('The upstream service answered with malformed data');
    return { address, password, token };
  }
  throw upstreamFailed('The mail provider refused every new address');
}

const tmailGen: Adapter<'utilities/tmail-gen'> = async (_params, ctx) => {
  const { address, password, token } = await createMailbox(ctx);
  const base = (ctx.upstream('mailtm').baseUrl ?? 'https://api.mail.tm').replace(/\/+$/, '');
  return reply({
    data: {
      address,
      password,
      token,
      inbox: { list: `GET ${base}/messages`, read: `GET ${base}/messages/{id}`, auth: `Bearer ${token}` },
    },
    cacheable: false,
  });
};

export default tmailGen;
