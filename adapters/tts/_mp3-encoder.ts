// PCM → MP3 in process with the maintained lamejs fork (the original throws `MPEGMode is not defined` on
// modern Node). Mono, 64 kbps, fed 1,152 samples at a time. lamejs is pure JavaScript and encodes about
// 50x faster than real time here, so a five-minute text is seconds of CPU: the writer hands the event
// loop back every few hundred milliseconds of audio, so other requests keep being answered meanwhile.
import { Mp3Encoder } from '@breezystack/lamejs';

const KBPS = 64;
const BLOCK = 1152;
/** Blocks encoded between two yields to the event loop (~1.5 s of audio at 22,050 Hz, a few ms of CPU). */
const BLOCKS_PER_YIELD = 32;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Mp3Writer {
  private readonly encoder: Mp3Encoder;
  private readonly parts: Buffer[] = [];
  private pending = new Int16Array(0);
  /** Samples received, for the exact duration (frame padding would add a few ms). */
  samples = 0;

  constructor(readonly sampleRate: number) {
    this.encoder = new Mp3Encoder(1, sampleRate, KBPS);
  }

  async write(pcm: Int16Array): Promise<void> {
    this.samples += pcm.length;
    let data = pcm;
    if (this.pending.length) {
      data = new Int16Array(this.pending.length + pcm.length);
      data.set(this.pending);
      data.set(pcm, this.pending.length);
    }
    let i = 0;
    let blocks = 0;
    for (; i + BLOCK <= data.length; i += BLOCK) {
      this.push(this.encoder.encodeBuffer(data.subarray(i, i + BLOCK)));
      if (++blocks % BLOCKS_PER_YIELD === 0) await yieldToLoop();
    }
    // Keep the remainder: every block but the last is full, so no gaps of padding inside the audio.
    this.pending = data.slice(i);
  }

  finish(): Buffer {
    if (this.pending.length) this.push(this.encoder.encodeBuffer(this.pending));
    this.pending = new Int16Array(0);
    this.push(this.encoder.flush());
    return Buffer.concat(this.parts);
  }

  get seconds(): number {
    return this.samples / this.sampleRate;
  }

  private push(bytes: Uint8Array) {
    // A copy: the encoder may reuse the memory behind what it returned.
    if (bytes.length) this.parts.push(Buffer.from(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  }
}
