// Text → MP3 through Google Translate's unofficial, keyless text-to-speech (the one gTTS reads):
// one GET per piece of at most ~200 characters (its limit), cut at sentence then word boundaries, and the
// MP3 answers concatenated (MP3 frames stand alone, so that is a valid stream). Pieces go one after the
// other: the endpoint answers 429 to bursts. A 200 that is not MP3 (a consent or captcha page) is a 502.
import { type UpstreamClient, upstreamFailed } from '../../engine/adapter.js';
import { mp3Info } from './_mp3-frames.js';
import { splitText } from './_chunks.js';
import { stopIfAborted } from './_serial-queue.js';
import type { Speech } from './_speak-offline.js';

export const GOOGLE_ENGINE = 'google-tts';

export async function speakGoogle(client: UpstreamClient, text: string, tl: string, signal: AbortSignal): Promise<Speech> {
  const path = typeof client.settings.path === 'string' ? client.settings.path : '/translate_tts';
  const max = typeof client.settings.chunkChars === 'number' ? client.settings.chunkChars : 200;
  const parts: Buffer[] = [];
  let seconds = 0;
  for (const q of splitText(text, max)) {
    stopIfAborted(signal);
    const res = await client.request<Buffer>({
      path,
      searchParams: { ie: 'UTF-8', q, tl, total: 1, idx: 0, textlen: q.length, client: 'tw-ob' },
      responseType: 'buffer',
      // Google's 404 here means a moved endpoint, not a missing thing of the caller's.
      allowStatus: [404],
      signal,
    });
    const info = res.status === 200 ? mp3Info(res.body) : undefined;
    if (!info?.frames) throw upstreamFailed('The google-tts upstream did not answer with MP3 audio');
    parts.push(res.body);
    seconds += info.seconds;
  }
  return { mp3: Buffer.concat(parts), seconds, engine: GOOGLE_ENGINE };
}
