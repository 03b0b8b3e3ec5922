// Reputation lists for phish-check: Google Safe Browsing v4 and URLhaus, each asked only when the operator
// configured its key. They are second opinions: a failure is reported in the answer, never an error.
import { ApiError, type AdapterContext } from '../../engine/adapter.js';

const TIMEOUT_MS = 5000;

/** The reputation lists asked (the catalog's `uses:` of phish-check). */
type Listing = 'safebrowsing' | 'urlhaus';

export interface Verdict {
  /** listed: the list knows the target as bad; clean: it does not; error: it could not be asked. */
  status: 'listed' | 'clean' | 'error' | 'not_configured';
  threats: string[];
}

export interface ReputationTarget {
  /** The URL given, or undefined when only a domain was. */
  url?: string;
  host: string;
}

async function guarded<U extends Listing>(ctx: AdapterContext<U>, id: U, ask: () => Promise<Verdict>): Promise<Verdict> {
  if (!ctx.upstream(id).hasKeys) return { status: 'not_configured', threats: [] };
  try {
    return await ask();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.info({ upstream: id, code: err.code }, 'reputation check failed; answering without it');
    return { status: 'error', threats: [] };
  }
}

interface SafeBrowsingAnswer {
  matches?: Array<{ threatType?: unknown }>;
}

export function safeBrowsing(ctx: AdapterContext<'safebrowsing'>, t: ReputationTarget): Promise<Verdict> {
  return guarded(ctx, 'safebrowsing', async () => {
    const client = ctx.upstream('safebrowsing');
    const urls = t.url ? [t.url] : [`http://${t.host}/`, `https://${t.host}/`];
    const res = await client.request<SafeBrowsingAnswer | null>({
      path: '/v4/threatMatches:find',
      method: 'POST',
      json: {
        client: { clientId: String(client.settings.clientId ?? 'unified-utility-api'), clientVersion: '0.1.0' },
        threatInfo: {
          threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE'],
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: urls.map((url) => ({ url })),
        },
      },
      timeoutMs: TIMEOUT_MS,
    });
    const body = res.body;
    // A clean answer is `{}`; anything that is not an object is not an answer at all.
    if (body !== null && (typeof body !== 'object' || Array.isArray(body))) return { status: 'error', threats: [] };
    const threats = [...new Set((body?.matches ?? []).map((m) => String(m.threatType ?? 'THREAT')))];
    return { status: threats.length ? 'listed' : 'clean', threats };
  });
}

interface UrlhausAnswer {
  query_status?: string;
  threat?: string | null;
  url_count?: string | number;
  urls?: Array<{ threat?: string | null }>;
}

export function urlhaus(ctx: AdapterContext<'urlhaus'>, t: ReputationTarget): Promise<Verdict> {
  return guarded(ctx, 'urlhaus', async () => {
    const res = await ctx.upstream('urlhaus').request<UrlhausAnswer>({
      path: t.url ? '/v1/url/' : '/v1/host/',
      method: 'POST',
      form: t.url ? { url: t.url } : { host: t.host },
      timeoutMs: TIMEOUT_MS,
    });
    const status = res.body && typeof res.body === 'object' ? res.body.query_status : undefined;
    if (status === 'no_results') return { status: 'clean', threats: [] };
    // Any other query_status (invalid_url, unknown_auth_key, …) is a failure to answer.
    if (status !== 'ok') return { status: 'error', threats: [] };
    const b = res.body;
    if (Array.isArray(b.urls) && b.urls.length === 0) return { status: 'clean', threats: [] };
    const found = b.urls ? b.urls.map((u) => u.threat) : [b.threat];
    const threats = [...new Set(found.filter((x): x is string => typeof x === 'string' && x !== ''))];
    return { status: 'listed', threats: threats.length ? threats : ['listed'] };
  });
}
