// Translation through MyMemory's keyless `GET /get?q=…&langpair=en|it` (mymemory.translated.net/doc/spec.php):
// tr's last provider (catalog/utilities.yaml), after LibreTranslate and gtx. Its own errors come inside an
// HTTP 200 (`responseStatus`), its used-up daily quota too (`quotaFinished`, and the warning in place of
// the translation, which must never reach the caller as one). The same quota answer may come with HTTP 429
// and no Retry-After: either way, the wait its body names holds MyMemory and is the caller's Retry-After.
import { badInput, upstreamBusy, upstreamChanged, upstreamFailed, isRecord, record } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { callerLanguages } from './_tr-params.js';

/** Its documented bound on `q`. */
const MAX_BYTES = 500;
/** A used-up quota that does not say when it comes back: ask again in an hour. */
const QUOTA_RETRY_S = 3600;

/** "… NEXT AVAILABLE IN  18 HOURS 10 MINUTES 39 SECONDS …" → seconds. */
function quotaBack(details: string): number {
  const m = /(\d+) HOURS? (\d+) MINUTES? (\d+) SECONDS?/i.exec(details);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) || QUOTA_RETRY_S : QUOTA_RETRY_S;
}

/** A used-up quota, over 200 or 429 (no Retry-After): its body says how long MyMemory is out (else an hour). */
function quotaBackOf(body: string): number | undefined {
  return /"quotaFinished":\s*true|MYMEMORY WARNING/i.test(body) ? quotaBack(body) : undefined;
}

const trMymemory: Adapter<'utilities/tr-mymemory'> = async (params, ctx) => {
  const { text, from, to } = callerLanguages(params);
  // Not the caller's fault (tr takes 5000 characters): this provider cannot, the others may.
  if (Buffer.byteLength(text) > MAX_BYTES) throw upstreamFailed(`MyMemory translates at most ${MAX_BYTES} bytes at a time`);
  const { body } = await ctx.upstream('mymemory').request({
    path: '/get',
    // `autodetect` as the source is what its web client sends when no language is chosen.
    searchParams: { q: text, langpair: `${from ?? 'autodetect'}|${to}` },
    waitOf: quotaBackOf,
  });
  const r = record(body);
  const status = Number(r.responseStatus);
  const details = typeof r.responseDetails === 'string' ? r.responseDetails : '';
  const data = isRecord(r.responseData) ? r.responseData : undefined;
  const translation = typeof data?.translatedText === 'string' ? data.translatedText : undefined;
  if (r.quotaFinished === true || status === 429 || /^MYMEMORY WARNING/i.test(translation ?? '')) {
    throw upstreamBusy('Upstream mymemory has used up its daily quota; try again later', quotaBack(`${details} ${translation ?? ''}`));
  }
  // An invalid language or pair (403), a text too long: its words stay ours to give.
  if (status >= 400 && status < 500) throw badInput('The upstream service rejected the request');
  if (status >= 500) throw upstreamFailed();
  if (status !== 200 || translation === undefined) throw upstreamChanged();

  // Without a source language, the best match says which it was (`source`: "fr-FR").
  const matches: unknown[] = Array.isArray(r.matches) ? r.matches : [];
  const best = matches.find(isRecord);
  const detected =
    typeof best?.source === 'string' && /^[a-z]{2,3}\b/i.test(best.source) ? best.source.split('-')[0].toLowerCase() : undefined;
  return { text, from: from ?? detected ?? 'auto', to, translation };
};

export default trMymemory;
