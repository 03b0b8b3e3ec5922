// Text → MP3 speech. Embedded eSpeak NG reads 68 of the 69 languages (five of them through a related
// language's voice, `approximate: true`); google-tts, when the operator configures it, reads the six that
// have no eSpeak voice of their own, Khmer among them. The MP3 is hosted for a day and its URL returned,
// or the bytes themselves for a client whose Accept asks for audio/mpeg.
//
// google-tts is "configured" when UPSTREAM_GOOGLE_TTS_URL is set: catalog/upstreams.yaml deliberately
// gives it no default URL, so a fresh install never sends text to Google unless its operator chose to.
import { invalidParam, notConfigured, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { chooseVoice } from './_languages.js';
import { speakOffline, type Speech } from './_speak-offline.js';
import { GOOGLE_ENGINE, speakGoogle } from './_speak-google.js';

const DAY_SECONDS = 86_400;

const generate: Adapter<'tts/generate'> = async (params, ctx) => {
  const text = params.text;
  if (!text.trim()) throw invalidParam('text', 'must contain something to say');
  const choice = chooseVoice(params.lang, params.accent);
  const { language } = choice;
  const google = ctx.upstream('google-tts');

  let speech: Speech;
  let voice: string;
  let approximate = choice.approximate;
  if (language.foreign && google.baseUrl) {
    speech = await speakGoogle(google, text, language.code, ctx.signal);
    voice = language.code;
    approximate = false;
  } else if (choice.voice === null) {
    throw notConfigured(`Language ${language.code} needs the google-tts upstream, which is not configured`);
  } else {
    speech = await speakOffline(text, choice.voice, ctx.log, ctx.signal);
    voice = choice.voice;
  }

  const meta = await ctx.blobs.put({ bytes: speech.mp3, kind: 'media', contentType: 'audio/mpeg', ttlSeconds: DAY_SECONDS });
  return reply({
    data: {
      url: ctx.blobs.url(meta, '.mp3'),
      expires_at: meta.expiresAt,
      voice,
      engine: speech.engine,
      approximate,
      bytes: speech.mp3.length,
      duration_seconds: Math.round(speech.seconds * 100) / 100,
      lang: language.code,
      accent: choice.accent?.region ?? null,
    },
    source: speech.engine === GOOGLE_ENGINE ? 'google-tts' : 'embedded',
    media: { bytes: speech.mp3, contentType: 'audio/mpeg' },
    cacheable: false,
  });
};

export default generate;
