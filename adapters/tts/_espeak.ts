// The offline speech engine: eSpeak NG compiled by Emscripten (@echogarden/espeak-ng-emscripten, GPL-3.0;
// a wasm2js build, so JavaScript over an ArrayBuffer heap, not WebAssembly). This is the only file that
// touches it: an operator who cannot ship GPL code replaces this module with one exporting the same four
// names (ENGINE, SAMPLE_RATE, voiceTags, synthesize) around another engine, and nothing else changes.
//
// One instance, created on first use and kept: loading it takes about a quarter of a second of CPU here, and
// its first sentences more while V8 optimises the generated code, then a sentence takes milliseconds. Its data
// files are read from the package's archive when eSpeak opens them (_espeak-archive.ts), not held whole. The
// instance is single-threaded and its voice is global state, so callers run one synthesis at a time (see
// _serial-queue.ts).
import type { Logger } from 'pino';
import type { ESpeakNGWorker, EspeakVoice } from '@echogarden/espeak-ng-emscripten';
import { LoadOnce } from '../../engine/adapter.js';
import { ArchiveOnDemand } from './_espeak-archive.js';

export const ENGINE = 'espeak-ng';
export const SAMPLE_RATE = 22050;

interface Instance {
  worker: ESpeakNGWorker;
  /** Language tag (`en-gb`, `pt`) → identifier of the voice that reads it best (`gmw/en`, `roa/pt`). */
  identifiers: Map<string, string>;
}

/** Where eSpeak's own stderr lines go: the logger of the request being served. */
let messages: Logger | undefined;

/**
 * set_voice() finds a voice by name or identifier, not by language tag: `en-gb`, `fr-fr` and `es-mx`
 * are languages of voices (gmw/en, roa/fr, roa/es-419) without being any voice's name. So map each tag
 * to the voice listing it with the best (lowest) priority, the first listed on a tie.
 */
function identifiersByTag(voices: EspeakVoice[]): Map<string, string> {
  const best = new Map<string, { id: string; priority: number }>();
  for (const v of voices) {
    for (const l of v.languages) {
      const seen = best.get(l.name);
      if (!seen || l.priority < seen.priority) best.set(l.name, { id: v.identifier, priority: l.priority });
    }
  }
  return new Map([...best].map(([tag, { id }]) => [tag, id]));
}

async function load(log: Logger): Promise<Instance> {
  const started = performance.now();
  const { default: createModule } = await import('@echogarden/espeak-ng-emscripten');
  const archive = new ArchiveOnDemand();
  const module = await createModule({
    print: () => {},
    printErr: (line) => messages?.debug({ espeak: line }, 'espeak-ng message'),
    getPreloadedPackage: archive.getPreloadedPackage,
  });
  if (archive.serve(module.FS) === 0) log.warn('eSpeak NG loaded its whole voice archive into memory: its loader did not ask for it');
  const worker = new module.eSpeakNGWorker();
  if (worker.get_samplerate() !== SAMPLE_RATE) throw new Error(`eSpeak NG runs at ${worker.get_samplerate()} Hz, expected ${SAMPLE_RATE}`);
  const identifiers = identifiersByTag(worker.list_voices());
  log.info({ ms: Math.round(performance.now() - started), voices: identifiers.size }, 'eSpeak NG loaded');
  return { worker, identifiers };
}

/** A failed load is not kept: the next request tries again. */
const instance = new LoadOnce(load, { retry: true });

function ready(log: Logger): Promise<Instance> {
  messages = log;
  return instance.get(log);
}

/** Every language tag some voice reads (loads the engine on first call). */
export async function voiceTags(log: Logger): Promise<Set<string>> {
  return new Set((await ready(log)).identifiers.keys());
}

/** SSML is on in this build (marks, voice switches): the caller's text is text, never markup. */
function escapeSsml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Speaks one piece of text (a sentence or a few) in a voice: 16-bit mono PCM at SAMPLE_RATE, in the buffers
 * eSpeak handed over (the MP3 writer takes them as they are; joining them would be one more copy).
 */
export async function synthesize(text: string, voiceTag: string, log: Logger): Promise<Int16Array[]> {
  const { worker, identifiers } = await ready(log);
  const id = identifiers.get(voiceTag);
  if (!id || worker.set_voice(id) !== 0) throw new Error(`eSpeak NG has no voice for ${voiceTag}`);
  const parts: Int16Array[] = [];
  try {
    worker.synthesize(escapeSsml(text), (samples) => {
      if (samples?.length) {
        // This build hands Int16 samples; others hand Float32 in the int16 range: round and clamp those.
        parts.push(
          samples instanceof Int16Array ? samples : Int16Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s)))),
        );
      }
      return false; // keep going
    });
  } catch (err) {
    // A trap of the engine leaves the instance unusable: the next request loads a fresh one.
    instance.forget();
    throw err;
  }
  return parts;
}
