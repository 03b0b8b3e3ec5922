// Text → MP3 with the embedded engine: sentence by sentence through one queue, PCM straight into the
// MP3 writer. Sentences keep each synthesis call short (the wasm call blocks the event loop while it
// runs), and between them the job yields, notices a caller that went away, and lets others be served.
import type { Logger } from 'pino';
import { LoadOnce, notConfigured } from '../../engine/adapter.js';
import { ENGINE, SAMPLE_RATE, synthesize, voiceTags } from './_espeak.js';
import { ACCENTS, LANGUAGES } from './_languages.js';
import { Mp3Writer } from './_mp3-encoder.js';
import { SerialQueue, stopIfAborted } from './_serial-queue.js';
import { splitText } from './_chunks.js';

/** Characters per synthesis call: a few sentences, tens of milliseconds of CPU. */
const CHUNK_CHARS = 300;
/** Requests allowed to wait behind the one being spoken; more get a 503 with Retry-After. */
const MAX_WAITING = 16;

const queue = new SerialQueue(MAX_WAITING);
/** On first use, checks every voice of the tables against the engine's list, once, and says which lack;
 * a check that fails (the engine did not load) is tried again by the next request. */
const available = new LoadOnce(
  async (log: Logger) => {
    const tags = await voiceTags(log);
    const wanted = new Set([...LANGUAGES.map((l) => l.voice), ...ACCENTS.map((a) => a.voice)].filter((v): v is string => v !== null));
    const missing = [...wanted].filter((v) => !tags.has(v));
    if (missing.length) log.warn({ missing }, 'voices of the tts tables that this eSpeak NG build lacks');
    return tags;
  },
  { retry: true },
);

export interface Speech {
  mp3: Buffer;
  seconds: number;
  engine: string;
}

export async function speakOffline(text: string, voice: string, log: Logger, signal: AbortSignal): Promise<Speech> {
  if (!(await available.get(log)).has(voice)) throw notConfigured(`The speech engine has no voice ${voice}`);
  const chunks = splitText(text, CHUNK_CHARS);
  return queue.run(async () => {
    const writer = new Mp3Writer(SAMPLE_RATE);
    for (const chunk of chunks) {
      stopIfAborted(signal);
      await writer.write(await synthesize(chunk, voice, log));
    }
    return { mp3: writer.finish(), seconds: writer.seconds, engine: ENGINE };
  }, signal);
}
