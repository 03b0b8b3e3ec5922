// Walks the frames of MPEG audio (layer I/II/III, MPEG 1, 2 and 2.5) to tell its duration, and whether
// bytes an upstream calls audio/mpeg are audio at all. ID3v2 tags (one per concatenated google-tts chunk)
// and ID3v1 trailers are skipped; garbage between frames is skipped byte by byte until a header appears.

// Bitrates in kbps by [version is MPEG-1][layer index 1..3] (layer index 3 = layer I, 1 = layer III).
const BITRATES: Record<string, number[]> = {
  '1-3': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-1': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-3': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-1': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
// Sample rates by version bits (0 = MPEG 2.5, 2 = MPEG 2, 3 = MPEG 1).
const RATES: Record<number, number[]> = { 0: [11025, 12000, 8000], 2: [22050, 24000, 16000], 3: [44100, 48000, 32000] };

interface Frame {
  length: number;
  samples: number;
  sampleRate: number;
}

function frameAt(b: Buffer, i: number): Frame | undefined {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (b[i + 1] >> 3) & 3;
  const layer = (b[i + 1] >> 1) & 3;
  const bitrateIndex = b[i + 2] >> 4;
  const rateIndex = (b[i + 2] >> 2) & 3;
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const padding = (b[i + 2] >> 1) & 1;
  const mpeg1 = version === 3;
  const kbps = BITRATES[`${mpeg1 ? 1 : 2}-${layer}`][bitrateIndex];
  const sampleRate = RATES[version][rateIndex];
  if (layer === 3) return { length: (Math.floor((12 * kbps * 1000) / sampleRate) + padding) * 4, samples: 384, sampleRate };
  const samples = layer === 1 && !mpeg1 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * kbps * 1000) / sampleRate) + padding, samples, sampleRate };
}

export interface Mp3Info {
  frames: number;
  seconds: number;
}

export function mp3Info(b: Buffer): Mp3Info {
  let frames = 0;
  let seconds = 0;
  let i = 0;
  while (i < b.length) {
    if (b[i] === 0x49 && b[i + 1] === 0x44 && b[i + 2] === 0x33 && i + 10 <= b.length) {
      // ID3v2: a 10-byte header with a syncsafe size (+10 more bytes when a footer is flagged).
      const size = ((b[i + 6] & 0x7f) << 21) | ((b[i + 7] & 0x7f) << 14) | ((b[i + 8] & 0x7f) << 7) | (b[i + 9] & 0x7f);
      i += 10 + size + (b[i + 5] & 0x10 ? 10 : 0);
      continue;
    }
    const frame = frameAt(b, i);
    // A header counts only when the frame it announces fits; a lone 0xFFEx in data is not a frame.
    if (frame && i + frame.length <= b.length) {
      frames++;
      seconds += frame.samples / frame.sampleRate;
      i += frame.length;
      continue;
    }
    i++;
  }
  return { frames, seconds };
}
