// Text-to-speech with a named voice (default nova). Which request form Pollinations answers today is
// unconfirmed, so pollinations → settings.audio.mode picks it:
//   path (default): GET audio.path?voice=…&<audio.query> → audio/mpeg. gen.pollinations.ai uses
//     '/audio/{prompt}'; the older text.pollinations.ai form is '/{prompt}' with query { model: openai-audio }.
//   chat: POST chatPath with the audio model and modalities [text, audio]; the MP3 comes back base64 in
//     choices[0].message.audio.data.
// Either way the MP3 is hosted for a day.
import { upstreamFailed, type UpstreamClient } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { fetchMedia, hostMedia, readMedia, type Media } from './_media.js';
import { pollinations, promptOf, promptPath, refusal, setting } from './_pollinations.js';

const audio01: Adapter<'gen-models/audio-01'> = async (params, ctx) => {
  const q = promptOf(params);
  const voice = params.voice;
  const { client, callerKey } = pollinations(params, ctx);
  const mode = setting<string>(client, ['audio', 'mode'], 'path');
  const media =
    mode === 'chat'
      ? await viaChat(client, q, voice, callerKey)
      : await fetchMedia(
          client,
          {
            path: promptPath(setting(client, ['audio', 'path'], '/audio/{prompt}'), q),
            searchParams: { ...setting<Record<string, string | number | boolean>>(client, ['audio', 'query'], {}), voice },
            callerKey,
          },
          'audio',
        );
  return hostMedia(ctx, media, { voice });
};

async function viaChat(client: UpstreamClient, q: string, voice: string, callerKey: string | undefined): Promise<Media> {
  const format = setting<string>(client, ['audio', 'format'], 'mp3');
  const res = await client.request({
    path: setting(client, ['chatPath'], '/v1/chat/completions'),
    method: 'POST',
    json: {
      model: setting(client, ['audio', 'model'], 'openai-audio'),
      modalities: ['text', 'audio'],
      audio: { voice, format },
      messages: [{ role: 'user', content: q }],
    },
    callerKey,
    allowStatus: [400, 404],
  });
  if (res.status === 400 || res.status === 404) throw refusal(res.status, res.body, 'audio');
  const b = (res.body ?? {}) as { choices?: Array<{ message?: { audio?: { data?: unknown } } }> };
  const data = b.choices?.[0]?.message?.audio?.data;
  if (typeof data !== 'string' || !data) throw upstreamFailed('The upstream service answered without audio');
  return readMedia(Buffer.from(data, 'base64'), format === 'mp3' ? 'audio/mpeg' : `audio/${format}`, 'audio');
}

export default audio01;
