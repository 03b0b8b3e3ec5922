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
  /**
   * The block being filled. Every block but the last is full, so no gaps of padding inside the audio, and
   * samples are copied into it as they come: no joined copy of a chunk's PCM is made (speech makes enough
   * garbage outside the heap already, see docs/decisions/embedded-memory.md).
   */
  private readonly block = new Int16Array(BLOCK);
  private filled = 0;
  /** Samples received, for the exact duration (frame padding would add a few ms). */
  samples = 0;

  constructor(readonly sampleRate: number) {
    this.encoder = new Mp3Encoder(1, sampleRate, KBPS);
  }

  /** Encodes PCM handed over in pieces of any size: the blocks fall on the same samples however it is cut. */
  async write(pieces: readonly Int16Array[]): Promise<void> {
    let blocks = 0;
    for (const piece of pieces) {
      this.samples += piece.length;
      for (let at = 0; at < piece.length;) {
        const n = Math.min(BLOCK - this.filled, piece.length - at);
        this.block.set(piece.subarray(at, at + n), this.filled);
        this.filled += n;
        at += n;
        if (this.filled < BLOCK) continue;
        this.push(this.encoder.encodeBuffer(this.block));
        this.filled = 0;
        if (++blocks % BLOCKS_PER_YIELD === 0) await yieldToLoop();
      }
    }
  }

  finish(): Buffer {
    if (this.filled) this.push(this.encoder.encodeBuffer(this.block.subarray(0, this.filled)));
    this.filled = 0;
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
