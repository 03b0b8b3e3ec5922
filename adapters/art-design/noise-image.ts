// A noise pattern PNG (php-noise), as a data URL in `data.base64` like the hosted php-noise answers, or
// the raw PNG for a client that sends `Accept: image/png`. Random by nature: never cached.
// The catalog bounds (tiles 1–50, tileSize 1–20, borderWidth 0–15) are php-noise's web caps; php-noise
// silently swaps an out-of-range value for the default, we answer 400 instead.
import { reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { cleanHex, hexToRgb, rgbToHex } from './_color.js';
import { encodePng, renderNoise } from './_noise.js';
import { createRng } from './_rng.js';

const noiseImage: Adapter<'art-design/noise-image'> = async (params) => {
  const rng = createRng();
  const hex = params.hex !== undefined ? cleanHex(params.hex)! : rgbToHex({ r: rng.int(0, 255), g: rng.int(0, 255), b: rng.int(0, 255) });
  const options = {
    base: hexToRgb(hex),
    tiles: params.tiles,
    tileSize: params.tileSize,
    borderWidth: params.borderWidth,
    mode: params.mode,
  };
  const image = renderNoise(options, rng);
  const png = encodePng(image.width, image.height, image.rgba);
  return reply({
    data: {
      base64: `data:image/png;base64,${png.toString('base64')}`,
      width: image.width,
      height: image.height,
      hex: `#${hex}`,
      borderColor: `#${rgbToHex(image.border)}`,
      mode: options.mode,
      tiles: options.tiles,
      tileSize: options.tileSize,
      borderWidth: options.borderWidth,
    },
    media: { bytes: png, contentType: 'image/png' },
    cacheable: false,
  });
};

export default noiseImage;
