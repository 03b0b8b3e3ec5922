// Translation through a LibreTranslate server (self-hosted, or a keyed public one) when the operator
// configures UPSTREAM_LIBRETRANSLATE_URL; otherwise the catalog's fallback, Google's keyless web endpoint
// (tr-gtx.ts: unofficial and throttled, so only the fallback). `from` is the caller's language, or the detected one.
import { invalidParam, upstreamChanged, isRecord, record, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { callerLanguages } from './_tr-params.js';

/** LibreTranslate's language codes, asked once an hour: a wrong code is our 400, not its. */
const LANGUAGES_TTL_MS = 3600_000;
/** A server that would not list them is not asked again for a minute. */
const NO_LIST_TTL_MS = 60_000;

function libreLanguages(ctx: AdapterContext<'libretranslate'>): Promise<string[] | undefined> {
  return ctx.memo(
    'libretranslate:languages',
    (codes) => (codes ? LANGUAGES_TTL_MS : NO_LIST_TTL_MS),
    async (upstream) => {
      try {
        const { body } = await upstream('libretranslate').request({ path: '/languages' });
        const found = Array.isArray(body)
          ? body
              .filter(isRecord)
              .map((l) => l.code)
              .filter((c): c is string => typeof c === 'string')
          : [];
        return found.length ? found : undefined;
      } catch {
        // No list (an older server, a hiccup): the server judges the codes itself.
        return undefined;
      }
    },
  );
}

/** Chinese is zh-Hans / zh-Hant on current LibreTranslate servers (zh / zt on older ones); callers say zh-CN. */
const ALIASES: Record<string, string[]> = {
  zh: ['zh-hans', 'zh'],
  'zh-cn': ['zh-hans', 'zh'],
  'zh-sg': ['zh-hans', 'zh'],
  'zh-tw': ['zh-hant', 'zt'],
  'zh-hk': ['zh-hant', 'zt'],
};

/** The server's spelling of a code: exact (any case), a known alias, else its base language (pt-BR → pt). */
function pick(name: 'from' | 'to', code: string, codes: string[] | undefined): string {
  if (!codes) return code;
  const lower = code.toLowerCase();
  for (const want of [lower, ...(ALIASES[lower] ?? []), lower.split('-')[0]]) {
    const hit = codes.find((c) => c.toLowerCase() === want);
    if (hit) return hit;
  }
  throw invalidParam(name, `must be a language code this server knows: ${codes.join(', ')}`);
}

const tr: Adapter<'utilities/tr'> = async (params, ctx) => {
  const { text, from, to } = callerLanguages(params);
  const api = ctx.upstream('libretranslate');
  const codes = api.baseUrl ? await libreLanguages(ctx) : undefined;
  const source = from ? pick('from', from, codes) : 'auto';
  const target = pick('to', to, codes);
  const { body } = await api.request({
    path: '/translate',
    method: 'POST',
    json: { q: text, source, target, format: 'text' },
  });
  const r = record(body);
  if (typeof r.translatedText !== 'string') throw upstreamChanged();
  const detected =
    isRecord(r.detectedLanguage) && typeof r.detectedLanguage.language === 'string' ? r.detectedLanguage.language : undefined;
  return { text, from: from ?? detected ?? 'auto', to, translation: r.translatedText };
};

export default tr;
