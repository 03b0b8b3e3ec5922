// Small but real media files, shared by the generation tests and the fake world's media upstreams:
// file-type recognises each by its signature, as it would a provider's file.
import { PNG } from 'pngjs';

/** A 4×4 grey PNG. */
export const png = (() => {
  const img = new PNG({ width: 4, height: 4 });
  img.data.fill(200);
  return PNG.sync.write(img);
})();
/** A JFIF header and padding. */
export const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(200, 7)]);
/** An ID3 tag and one MPEG audio frame header. */
export const mp3 = Buffer.concat([
  Buffer.from('ID3'),
  Buffer.from([3, 0, 0, 0, 0, 0, 0]),
  Buffer.from([0xff, 0xfb, 0x90, 0x64]),
  Buffer.alloc(600, 1),
]);
/** An ISO base media `ftyp` box. */
export const mp4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypisom'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isomiso2'),
  Buffer.alloc(900, 3),
]);
