// Card BIN lookup. The scheme, lengths and security code come from credit-card-type (offline, always);
// the issuer, type, prepaid flag, product tier and country come from binlist when it answers. binlist is
// an optional enrichment with a tiny allowance: whatever goes wrong there leaves those fields null.
import creditCardType from 'credit-card-type';
import { ApiError, notFound, reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

/** binlist is optional: a slow one must not hold the answer for its full upstream timeout. */
const BINLIST_TIMEOUT_MS = 3000;

interface BinlistAnswer {
  number?: { length?: number; luhn?: boolean } | null;
  scheme?: string | null;
  type?: string | null;
  brand?: string | null;
  prepaid?: boolean | null;
  country?: { alpha2?: string; name?: string; currency?: string; emoji?: string } | null;
  bank?: { name?: string; url?: string; phone?: string; city?: string } | null;
}

/** binlist's answer, `null` when it knows no such BIN, `undefined` when it could not be asked. */
async function askBinlist(bin: string, ctx: AdapterContext<'binlist'>): Promise<BinlistAnswer | null | undefined> {
  try {
    const res = await ctx.upstream('binlist').request<BinlistAnswer>({
      path: `/${bin}`,
      headers: { 'Accept-Version': '3' },
      allowStatus: [404],
      timeoutMs: BINLIST_TIMEOUT_MS,
    });
    if (res.status === 404) return null;
    // A 200 that is not an object (an HTML error page) is no answer either.
    return res.body && typeof res.body === 'object' ? res.body : undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.info({ code: err.code }, 'binlist unavailable; answering from the embedded table only');
    return undefined;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

const binLookup: Adapter<'tools/bin-lookup'> = async (params, ctx) => {
  const bin = params.bin;
  const match = creditCardType(bin)[0];
  if (!match) throw notFound(`No card scheme is known for BIN ${bin}`);

  const remote = await askBinlist(bin, ctx);
  const b = remote ?? {};
  const country =
    b.country && str(b.country.alpha2)
      ? { code: str(b.country.alpha2), name: str(b.country.name), currency: str(b.country.currency) }
      : null;
  const data = {
    bin,
    scheme: match.type,
    brand: match.niceType,
    lengths: match.lengths,
    cvv: { name: match.code.name, size: match.code.size },
    luhn: typeof b.number?.luhn === 'boolean' ? b.number.luhn : true,
    issuer: str(b.bank?.name),
    type: str(b.type),
    prepaid: typeof b.prepaid === 'boolean' ? b.prepaid : null,
    // binlist's `brand` is a product tier (Traditional, Platinum…), not the scheme.
    product: str(b.brand),
    country,
    sources: remote ? ['credit-card-type', 'binlist'] : ['credit-card-type'],
  };
  // A failed enrichment must not be remembered for the 30 days a real answer is.
  return reply({ data, source: remote ? 'binlist' : 'embedded', cacheable: remote !== undefined });
};

export default binLookup;
