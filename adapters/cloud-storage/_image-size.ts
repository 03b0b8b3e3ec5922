// Width and height from an image's header bytes, for the formats image-host accepts. A few lines per format
// instead of a decoder: only the header is read, never the pixels. Unknown or truncated → undefined.
export interface Size {
  width: number;
  height: number;
}

const ok = (width: number, height: number): Size | undefined =>
  Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0 ? { width, height } : undefined;

function png(b: Buffer): Size | undefined {
  // Signature (8), IHDR length (4) and type (4), then width and height, big-endian.
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return ok(b.readUInt32BE(16), b.readUInt32BE(20));
}

function gif(b: Buffer): Size | undefined {
  return b.length < 10 ? undefined : ok(b.readUInt16LE(6), b.readUInt16LE(8));
}

function bmp(b: Buffer): Size | undefined {
  if (b.length < 26) return undefined;
  const header = b.readUInt32LE(14);
  // OS/2 1.x headers hold 16-bit sizes; later ones 32-bit, the height negative for top-down bitmaps.
  if (header === 12) return ok(b.readUInt16LE(18), b.readUInt16LE(20));
  return ok(b.readInt32LE(18), Math.abs(b.readInt32LE(22)));
}

function webp(b: Buffer): Size | undefined {
  if (b.length < 30) return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return ok(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return ok((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return ok(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  return undefined;
}

function jpeg(b: Buffer): Size | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Markers without a length: standalone RSTn, SOI, TEM.
    if ((marker >= 0xd0 && marker <= 0xd8) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), hold the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return ok(b.readUInt16BE(i + 7), b.readUInt16BE(i + 5));
    }
    i += 2 + length;
  }
  return undefined;
}

function tiff(b: Buffer): Size | undefined {
  if (b.length < 8) return undefined;
  const le = b.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > b.length) return undefined;
  let width = 0;
  let height = 0;
  const count = u16(ifd);
  for (let n = 0; n < count; n++) {
    const e = ifd + 2 + n * 12;
    if (e + 12 > b.length) break;
    const tag = u16(e);
    const value = u16(e + 2) === 3 ? u16(e + 8) : u32(e + 8); // SHORT or LONG
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return ok(width, height);
}

/** AVIF and HEIF keep the size in an `ispe` property box: version/flags (4), width (4), height (4). */
function isobmff(b: Buffer): Size | undefined {
  const at = b.indexOf('ispe', 0, 'latin1');
  if (at < 4 || at + 16 > b.length) return undefined;
  return ok(b.readUInt32BE(at + 8), b.readUInt32BE(at + 12));
}

function ico(b: Buffer): Size | undefined {
  // First directory entry: a 0 byte means 256 pixels.
  if (b.length < 8) return undefined;
  return ok(b[6] || 256, b[7] || 256);
}

const READERS: Record<string, (b: Buffer) => Size | undefined> = {
  png,
  apng: png,
  gif,
  bmp,
  webp,
  jpg: jpeg,
  tif: tiff,
  avif: isobmff,
  heic: isobmff,
  ico,
  cur: ico,
};

/** `ext` is file-type's extension of the sniffed format. */
export function imageSize(bytes: Buffer, ext: string): Size | undefined {
  try {
    return READERS[ext]?.(bytes);
  } catch {
    return undefined; // a truncated header: the caller reports the size as unknown
  }
}
