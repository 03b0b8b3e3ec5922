// Chat with whatever OpenAI-compatible server the operator points UPSTREAM_OPENAI_COMPAT_URL at (OpenAI,
// OpenRouter, Ollama, vLLM, llama.cpp, Pollinations…). There is no public default: until it is set the
// endpoint answers 503 naming the variable.
//
// The model asked for is UPSTREAM_OPENAI_COMPAT_MODEL when set, else `settings.model` of the
// openai-compat entry in catalog/upstreams.yaml: switching servers usually means switching models, and an
// environment variable does that without editing the catalog. data.model is the model the server says
// answered (e.g. `gpt-4o-mini-2024-07-18`), falling back to the one asked for.
import { missingParam, notConfigured, upstreamFailed, oneTurn, readCompletion } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const chat1: Adapter<'ai/chat-1'> = async (params, ctx) => {
  const q = params.q;
  if (!q.trim()) throw missingParam('q');
  const client = ctx.upstream('openai-compat');
  if (!client.baseUrl) throw notConfigured('Upstream openai-compat is not configured: set UPSTREAM_OPENAI_COMPAT_URL');
  // settings.model comes from upstreams.yaml, or from UPSTREAM_OPENAI_COMPAT_MODEL (engine/upstream/client.ts).
  const model = typeof client.settings.model === 'string' ? client.settings.model.trim() : '';
  if (!model) throw notConfigured('Upstream openai-compat has no model: set UPSTREAM_OPENAI_COMPAT_MODEL');

  const res = await client.request({
    path: typeof client.settings.path === 'string' ? client.settings.path : '/chat/completions',
    method: 'POST',
    json: oneTurn(model, q),
    // A 404 here is our configuration (wrong base path, unknown model), not something the caller asked for.
    allowStatus: [404],
  });
  if (res.status === 404) throw upstreamFailed('The chat server knows no such path or model: check its base URL and model');
  const answer = readCompletion(res.body);
  return { response: answer.content, model: answer.model ?? model };
};

export default chat1;
