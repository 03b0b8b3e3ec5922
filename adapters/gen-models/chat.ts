// gen-models/chat-01 … chat-17: one adapter, seventeen bindings. Each catalog entry names its model in
// `options: { model }`; the bindings are a configuration choice because Pollinations' model list drifts.
import { reply, oneTurn, readCompletion } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { pollinations, promptOf, refusal, setting } from './_pollinations.js';

const chat: Adapter<'gen-models/chat'> = async (params, ctx) => {
  const q = promptOf(params);
  const { client, callerKey } = pollinations(params, ctx);
  const model = ctx.options.model;
  // A catalog entry without its binding is our bug, not the caller's.
  if (typeof model !== 'string' || !model) throw new Error(`${ctx.endpoint}: catalog options.model is missing`);
  const res = await client.request({
    path: setting(client, ['chatPath'], '/v1/chat/completions'),
    method: 'POST',
    json: oneTurn(model, q),
    callerKey,
    allowStatus: [400, 404],
  });
  if (res.status === 400 || res.status === 404) throw refusal(res.status, res.body, 'chat');
  const answer = readCompletion(res.body);
  // Never cached: a generation is new every time, and an answer paid with a caller's key is theirs.
  return reply({ data: { response: answer.content, model: answer.model ?? model }, cacheable: false });
};

export default chat;
