// The engine-independent pieces of tts/generate: text chunking, MP3 frame walking, the serial queue,
// and the language/accent choice.
import fs from 'node:fs';
import path from 'node:path';
import { splitText } from '../../../adapters/tts/_chunks.js';
import { mp3Info } from '../../../adapters/tts/_mp3-frames.js';
import { Mp3Writer } from '../../../adapters/tts/_mp3-encoder.js';
import { Mp3Encoder } from '@breezystack/lamejs';
import { SerialQueue } from '../../../adapters/tts/_serial-queue.js';
import { ACCENTS, LANGUAGES, chooseVoice } from '../../../adapters/tts/_languages.js';
import { voiceTags } from '../../../adapters/tts/_espeak.js';
import { pino } from 'pino';
import { ApiError } from '../../../engine/errors.js';
import { FIXTURES } from '../../helpers/paths.js';

const TONE = fs.readFileSync(path.join(FIXTURES, 'google-tts', 'tone-0.6s.mp3'));

describe('splitText', () => {
  test('packs whole sentences up to the limit and loses no word', () => {
    const text = 'One sentence here. Another one follows! And a question? ' + 'Filler words go on and on. '.repeat(20);
    const chunks = splitText(text, 100);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
    expect(chunks[0]).toMatch(/^One sentence here\. Another one follows! And a question\?/);
    expect(chunks.join(' ')).toBe(text.trim());
    // Sentences are not cut when they fit.
    for (const c of chunks) expect(c).toMatch(/[.!?]$/);
  });

  test('a sentence longer than the limit is cut at word boundaries; a longer word hard', () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    const chunks = splitText(words, 50);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(50);
    expect(chunks.join(' ')).toBe(words);
    const long = splitText('x'.repeat(120), 50);
    expect(long.map((c) => c.length)).toEqual([50, 50, 20]);
  });

  test('sentence ends of other scripts, and no split surrogate pair', () => {
    expect(splitText('你好。我很好。谢谢。', 4)).toEqual(['你好。', '我很好。', '谢谢。']);
    const emoji = '😀'.repeat(30);
    for (const c of splitText(emoji, 7)) expect(c).toMatch(/^(😀)+$/u);
  });

  test('blank text has no chunks; whitespace is normalised', () => {
    expect(splitText(' \n\t ', 100)).toEqual([]);
    expect(splitText('a\n\nb   c', 100)).toEqual(['a b c']);
  });
});

describe('mp3Info', () => {
  test('counts the frames and duration of an MP3', () => {
    const info = mp3Info(TONE);
    expect(info.frames).toBeGreaterThan(20);
    expect(info.seconds).toBeGreaterThan(0.55);
    expect(info.seconds).toBeLessThan(0.75);
  });

  test('skips ID3v2 tags between concatenated files', () => {
    const id3 = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(10, 0xff)]);
    const two = mp3Info(Buffer.concat([id3, TONE, id3, TONE]));
    expect(two.frames).toBe(mp3Info(TONE).frames * 2);
  });

  test('text is not MP3', () => {
    expect(mp3Info(Buffer.from('<!DOCTYPE html><html>Sorry</html>')).frames).toBe(0);
    expect(mp3Info(Buffer.alloc(0)).frames).toBe(0);
  });
});

describe('Mp3Writer', () => {
  // Two seconds and a bit of a tone with a deterministic wobble: not a whole number of 1,152-sample blocks.
  const pcm = Int16Array.from({ length: 2 * 22050 + 333 }, (_, i) =>
    Math.round(8000 * Math.sin(i / 7) + 3000 * Math.sin(i / 53 + (i % 11))),
  );

  /** lamejs fed as the writer has always fed it: full blocks, views of one array, then the rest, then flush. */
  function reference(): Buffer {
    const encoder = new Mp3Encoder(1, 22050, 64);
    const out: Buffer[] = [];
    let i = 0;
    for (; i + 1152 <= pcm.length; i += 1152) out.push(Buffer.from(encoder.encodeBuffer(pcm.subarray(i, i + 1152))));
    out.push(Buffer.from(encoder.encodeBuffer(pcm.slice(i))), Buffer.from(encoder.flush()));
    return Buffer.concat(out);
  }

  test('gives the bytes of lamejs fed block by block, however the samples are cut and handed over', async () => {
    const whole = new Mp3Writer(22050);
    await whole.write([pcm]);
    const mp3 = whole.finish();
    expect(mp3.equals(reference())).toBe(true);
    expect(whole.samples).toBe(pcm.length);

    // Pieces of 1 to 3,000 samples, over several writes, as eSpeak's buffers come chunk by chunk.
    const cut = new Mp3Writer(22050);
    let at = 0;
    for (let n = 0; at < pcm.length; n++) {
      const pieces: Int16Array[] = [];
      for (let k = 0; k < 4 && at < pcm.length; k++) {
        const size = Math.min(pcm.length - at, 1 + ((n * 7919 + k * 104729) % 3000));
        pieces.push(pcm.slice(at, at + size));
        at += size;
      }
      await cut.write(pieces);
    }
    expect(cut.finish().equals(mp3)).toBe(true);
    expect(cut.seconds).toBeCloseTo(pcm.length / 22050, 6);
  });
});

describe('SerialQueue', () => {
  test('runs jobs one at a time, in order', async () => {
    const q = new SerialQueue(10);
    const log: string[] = [];
    let running = 0;
    const job = (name: string, ms: number) => async () => {
      running++;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([q.run(job('a', 30)), q.run(job('b', 5)), q.run(job('c', 1))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  test('a failed job does not stop the next', async () => {
    const q = new SerialQueue(10);
    const failed = q.run(async () => {
      throw new Error('boom');
    });
    const next = q.run(async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  test('past the waiting limit → 503 with Retry-After; an aborted waiter is skipped', async () => {
    const q = new SerialQueue(1);
    let release!: () => void;
    const first = q.run(() => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setImmediate(r)); // the first job is running, no longer waiting
    const abort = new AbortController();
    const second = q.run(async () => 'never', abort.signal);
    const err = await q.run(async () => 'third').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
    abort.abort();
    await Promise.resolve();
    release();
    await first;
    await expect(second).rejects.toMatchObject({ status: 504 });
  });
});

describe('chooseVoice', () => {
  test('the default accent US applies to en and es only', () => {
    expect(chooseVoice('en', undefined)).toMatchObject({ voice: 'en-us', accent: { region: 'US' } });
    expect(chooseVoice('es', undefined)).toMatchObject({ voice: 'es-419', accent: { region: 'US' } });
    expect(chooseVoice('fr', undefined)).toMatchObject({ voice: 'fr-fr', accent: null });
    expect(chooseVoice('de', undefined)).toMatchObject({ voice: 'de', accent: null });
  });

  test('km has no voice', () => {
    expect(chooseVoice('km', undefined)).toMatchObject({ voice: null, language: { foreign: true } });
  });
});

describe('the eSpeak NG build', () => {
  test('has every voice the tables name', async () => {
    const tags = await voiceTags(pino({ level: 'silent' }));
    const wanted = [...LANGUAGES.map((l) => l.voice), ...ACCENTS.map((a) => a.voice)].filter((v): v is string => v !== null);
    expect(wanted.filter((v) => !tags.has(v))).toEqual([]);
  }, 30_000);
});
