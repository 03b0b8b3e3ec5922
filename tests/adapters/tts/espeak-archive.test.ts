// eSpeak NG's data read from its archive on demand (adapters/tts/_espeak-archive.ts) against the package's
// own loader, which holds the whole archive in memory: every file reads the same bytes, and every voice
// speaks the same samples, including text that makes eSpeak switch to another language's dictionary.
import createModule, { type EspeakModule, type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import { ArchiveOnDemand, DATA_ROOT, type EmscriptenFS } from '../../../adapters/tts/_espeak-archive.js';

// A fresh object per module: Emscripten writes its own members into the options it is given.
const quiet = () => ({ print: () => {}, printErr: () => {} });

function files(FS: EmscriptenFS, dir = DATA_ROOT): string[] {
  return FS.readdir(dir)
    .filter((n) => n !== '.' && n !== '..')
    .flatMap((n) => (FS.isDir(FS.stat(`${dir}/${n}`).mode) ? files(FS, `${dir}/${n}`) : [`${dir}/${n}`]));
}

const readFile = (m: EspeakModule, path: string) => (m.FS as unknown as { readFile(p: string): Uint8Array }).readFile(path);

function speak(worker: ESpeakNGWorker, voice: string, text: string): Int16Array {
  expect(worker.set_voice(voice)).toBe(0);
  const parts: number[] = [];
  worker.synthesize(text, (samples) => {
    if (samples) parts.push(...samples);
    return false;
  });
  return Int16Array.from(parts);
}

let whole: EspeakModule;
let onDemand: EspeakModule;
let served: number;

beforeAll(async () => {
  whole = await createModule(quiet());
  const archive = new ArchiveOnDemand();
  onDemand = await createModule({ ...quiet(), getPreloadedPackage: archive.getPreloadedPackage });
  served = archive.serve(onDemand.FS);
}, 60_000);

test('every data file reads the same bytes as from the whole archive', () => {
  const paths = files(whole.FS);
  expect(paths.length).toBeGreaterThan(400);
  expect(files(onDemand.FS)).toEqual(paths);
  expect(served).toBe(paths.length);
  for (const p of paths) expect(Buffer.from(readFile(onDemand, p)).equals(Buffer.from(readFile(whole, p)))).toBe(true);
});

test('a module whose loader read its archive itself is left as it is', () => {
  expect(new ArchiveOnDemand().serve(whole.FS)).toBe(0);
});

test.each([
  ['gmw/en', 'Hello world, this is a short test of the speech service. It costs 42 dollars.'],
  ['gmw/en-US', 'The quick brown fox jumps over the lazy dog.'],
  ['gmw/de', 'Guten Tag, wie geht es Ihnen? Das Wetter ist schön.'],
  ['roa/fr', "Bonjour, je m'appelle Marie et j'habite à Paris."],
  // Latin-script words make these voices switch to English and read en_dict mid-sentence.
  ['zle/ru', 'Привет, это проверка. Я использую Windows и Linux каждый день.'],
  ['inc/hi', 'नमस्ते, मेरा computer नया है।'],
  ['sit/cmn', '你好，今天天气很好。I like tea.'],
  ['sem/ar', 'مرحبا بكم في هذا الاختبار.'],
  ['gmq/fo', 'Góðan dag, hvussu hevur tú tað?'],
])('%s speaks the same samples as with the whole archive', (voice, text) => {
  const reference = speak(new whole.eSpeakNGWorker(), voice, text);
  expect(reference.length).toBeGreaterThan(10_000);
  expect(Buffer.from(speak(new onDemand.eSpeakNGWorker(), voice, text).buffer).equals(Buffer.from(reference.buffer))).toBe(true);
});
