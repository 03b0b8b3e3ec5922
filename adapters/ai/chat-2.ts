// Search-style chat with web citations: Perplexity Sonar. `model=auto` means the default search model
// (settings.models.auto, sonar); the catalog's enum holds the other Sonar models, so anything else is a 400
// before we get here. Without a pooled key (UPSTREAM_PERPLEXITY_KEYS) the upstream client answers 503.
import { missingParam, oneTurn, readCompletion } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

interface Citation {
  index: number;
  url: string;
  title: string | null;
}

const chat2: Adapter<'ai/chat-2'> = async (params, ctx) => {
  const q = params.q;
  if (!q.trim()) throw missingParam('q');
  const client = ctx.upstream('perplexity');
  const aliases = (client.settings.models ?? {}) as Record<string, unknown>;
  const asked = params.model;
  const model = typeof aliases[asked] === 'string' ? aliases[asked] : asked === 'auto' ? 'sonar' : asked;

  const res = await client.request({
    path: typeof client.settings.path === 'string' ? client.settings.path : '/chat/completions',
    method: 'POST',
    json: oneTurn(model, q),
  });
  const answer = readCompletion(res.body);
  return { response: answer.content, model: answer.model ?? model, citations: citationsOf(res.body) };
};

/**
 * `citations` (URLs, in the order of the [n] markers) with titles from `search_results`. Newer answers may
 * carry only `search_results`, in the same order, so they stand in for the URL list.
 */
function citationsOf(body: unknown): Citation[] {
  const b = (body ?? {}) as Record<string, unknown>;
  const results = (Array.isArray(b.search_results) ? b.search_results : []).filter(
    (r): r is Record<string, unknown> => typeof r === 'object' && r !== null,
  );
  const titleOf = (url: string): string | null => {
    const hit = results.find((r) => r.url === url && typeof r.title === 'string' && r.title.trim());
    return hit ? (hit.title as string) : null;
  };
  const urls: unknown[] = Array.isArray(b.citations) ? b.citations : results.map((r) => r.url);
  const out: Citation[] = [];
  urls.forEach((url, i) => {
    // The index stays the position in the upstream list, so it keeps matching the [n] markers.
    if (typeof url === 'string' && /^https?:\/\//i.test(url)) out.push({ index: i + 1, url, title: titleOf(url) });
  });
  return out;
}

export default chat2;
