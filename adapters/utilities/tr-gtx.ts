// Translation through Google's keyless web endpoint (`gtx`): tr's fallback provider (catalog/utilities.yaml),
// unofficial and throttled.
import { upstreamChanged, isRecord, record } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { callerLanguages } from './_tr-params.js';

const trGtx: Adapter<'utilities/tr-gtx'> = async (params, ctx) => {
  const { text, from, to } = callerLanguages(params);
  const api = ctx.upstream('gtx');
  const { body } = await api.request({
    path: String(api.settings.path ?? '/translate_a/single'),
    // dj=1 asks for named fields ({sentences:[{trans,orig}], src}) instead of nested arrays.
    searchParams: { client: String(api.settings.client ?? 'gtx'), sl: from ?? 'auto', tl: to, dt: 't', dj: 1, q: text },
  });
  const r = record(body);
  if (!Array.isArray(r.sentences)) throw upstreamChanged();
  // Sentences without `trans` are transliterations.
  const translation = r.sentences
    .filter(isRecord)
    .map((s) => s.trans)
    .filter((t): t is string => typeof t === 'string')
    .join('');
  return { text, from: from ?? (typeof r.src === 'string' ? r.src : 'auto'), to, translation };
};

export default trGtx;
