// Translation. A LibreTranslate server (self-hosted, or a keyed public one) when the operator configures
// UPSTREAM_LIBRETRANSLATE_URL; otherwise Google's keyless web endpoint (`gtx`: unofficial and throttled,
// so it is only the fallback). Either way `from` is the caller's language, or the detected one.
import {
  invalidParam,
  upstreamFailed,
  isRecord,
  record,
  reply,
  type Adapter,
  type AdapterContext,
  type UpstreamClient,
} from '../../engine/adapter.js';

/** LibreTranslate's language codes per server, asked once an hour: a wrong code is our 400, not its. */
const LANGUAGES_TTL_MS = 3600_000;
/** A server that would not list them is not asked again for a minute. */
const NO_LIST_TTL_MS = 60_000;
const languages = new Map<string, { codes: string[] | undefined; at: number }>();

async function libreLanguages(api: UpstreamClient): Promise<string[] | undefined> {
  const key = api.baseUrl ?? '';
  const memo = languages.get(key);
  if (memo && Date.now() - memo.at < (memo.codes ? LANGUAGES_TTL_MS : NO_LIST_TTL_MS)) return memo.codes;
  let codes: string[] | undefined;
  try {
    const { body } = await api.request({ path: '/languages' });
    const found = Array.isArray(body)
      ? body
          .filter(isRecord)
          .map((l) => l.code)
          .filter((c): c is string => typeof c === 'string')
      : [];
    codes = found.length ? found : undefined;
  } catch {
    // No list (an older server, a hiccup): the server judges the codes itself.
    codes = undefined;
  }
  languages.set(key, { codes, at: Date.now() });
  return codes;
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

async function viaLibre(api: UpstreamClient, text: string, from: string | undefined, to: string) {
  const codes = await libreLanguages(api);
  const source = from ? pick('from', from, codes) : 'auto';
  const target = pick('to', to, codes);
  const { body } = await api.request({
    path: '/translate',
    method: 'POST',
    json: { q: text, source, target, format: 'text' },
  });
  const r = record(body);
  if (typeof r.translatedText !== 'string') throw upstreamFailed('The upstream service answered with malformed data');
  const detected =
    isRecord(r.detectedLanguage) && typeof r.detectedLanguage.language === 'string' ? r.detectedLanguage.language : undefined;
  return { text, from: from ?? detected ?? 'auto', to, translation: r.translatedText };
}

async function viaGtx(text: string, from: string | undefined, to: string, ctx: AdapterContext) {
  const api = ctx.upstream('gtx');
  const { body } = await api.request({
    path: String(api.settings.path ?? '/translate_a/single'),
    // dj=1 asks for named fields ({sentences:[{trans,orig}], src}) instead of nested arrays.
    searchParams: { client: String(api.settings.client ?? 'gtx'), sl: from ?? 'auto', tl: to, dt: 't', dj: 1, q: text },
  });
  const r = record(body);
  if (!Array.isArray(r.sentences)) throw upstreamFailed('The upstream service answered with malformed data');
  // Sentences without `trans` are transliterations.
  const translation = r.sentences
    .filter(isRecord)
    .map((s) => s.trans)
    .filter((t): t is string => typeof t === 'string')
    .join('');
  return { text, from: from ?? (typeof r.src === 'string' ? r.src : 'auto'), to, translation };
}

const tr: Adapter = async (params, ctx) => {
  const text = String(params.text);
  const given = params.from === undefined ? undefined : String(params.from);
  const from = given && given.toLowerCase() !== 'auto' ? given : undefined;
  const to = String(params.to);
  const libre = ctx.upstream('libretranslate');
  if (libre.baseUrl) return reply({ data: await viaLibre(libre, text, from, to), source: 'libretranslate' });
  return reply({ data: await viaGtx(text, from, to, ctx), source: 'gtx' });
};

export default tr;
