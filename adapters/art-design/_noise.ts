// php-noise (RundesBalli/php-noise v1.2, MIT), reimplemented from its documented behaviour: a square of
// tiles × tiles flat tiles, each a random colour of a palette built around a base colour, with an
// optional grid (border strips after every tile) in a border colour. The image is
// tiles·(tileSize+borderWidth) pixels wide.
import { PNG } from 'pngjs';
import type { Rgb } from './_color.js';
import type { Rng } from './_rng.js';

export type NoiseMode = 'brightness' | 'around';

export interface NoiseOptions {
  base: Rgb;
  tiles: number;
  tileSize: number;
  borderWidth: number;
  mode: NoiseMode;
}

const clampByte = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/**
 * brightness: the base darkened and lightened by 1.5 % steps, c ∓ c/100·i·1.5 for i = 1…5. The base
 * itself is a tile colour only without a border; with one it is the border colour.
 */
function brightness(o: NoiseOptions): { palette: (rng: Rng) => Rgb; border: Rgb } {
  const colors: Rgb[] = [];
  for (let i = 1; i <= 5; i++) {
    for (const sign of [-1, 1]) {
      const f = 1 + (sign * i * 1.5) / 100;
      colors.push({ r: clampByte(o.base.r * f), g: clampByte(o.base.g * f), b: clampByte(o.base.b * f) });
    }
  }
  if (o.borderWidth === 0) colors.push(o.base);
  return { palette: (rng) => colors[rng.int(0, colors.length - 1)], border: o.base };
}

/**
 * around: every channel varies over 20 values around its base, [v−9, v+10] or [v−10, v+9] at random,
 * pinned to [0,19] / [236,255] near the ends. The border colour is drawn from the same ranges and never
 * used for a tile.
 */
function around(o: NoiseOptions, rng: Rng): { palette: (rng: Rng) => Rgb; border: Rgb } {
  const range = (v: number): [number, number] => {
    if (v < 10) return [0, 19];
    if (v > 245) return [236, 255];
    return rng.int(0, 1) ? [v - 9, v + 10] : [v - 10, v + 9];
  };
  const [R, G, B] = [range(o.base.r), range(o.base.g), range(o.base.b)];
  const pick = (r: Rng): Rgb => ({ r: r.int(...R), g: r.int(...G), b: r.int(...B) });
  const border = pick(rng);
  const same = (a: Rgb, b: Rgb) => a.r === b.r && a.g === b.g && a.b === b.b;
  return {
    border,
    palette: (r) => {
      for (;;) {
        const c = pick(r);
        if (o.borderWidth === 0 || !same(c, border)) return c;
      }
    },
  };
}

/** The raw RGBA pixels of the noise image. */
export function renderNoise(o: NoiseOptions, rng: Rng): { width: number; height: number; rgba: Buffer; border: Rgb } {
  const cell = o.tileSize + o.borderWidth;
  const size = o.tiles * cell;
  const { palette, border } = o.mode === 'around' ? around(o, rng) : brightness(o);
  const rgba = Buffer.alloc(size * size * 4);
  const fill = (x0: number, y0: number, w: number, h: number, c: Rgb) => {
    for (let y = y0; y < y0 + h; y++) {
      for (let x = x0; x < x0 + w; x++) {
        const i = (y * size + x) * 4;
        rgba[i] = c.r;
        rgba[i + 1] = c.g;
        rgba[i + 2] = c.b;
        rgba[i + 3] = 255;
      }
    }
  };
  fill(0, 0, size, size, border);
  for (let tx = 0; tx < o.tiles; tx++) {
    for (let ty = 0; ty < o.tiles; ty++) fill(tx * cell, ty * cell, o.tileSize, o.tileSize, palette(rng));
  }
  return { width: size, height: size, rgba, border };
}

export function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  const png = new PNG({ width, height });
  png.data = rgba;
  // Opaque pixels: RGB without alpha. Rows inside a tile repeat the row above, so the Up filter turns them
  // into zeros; pngjs's default adaptive filtering costs several times more for a larger file.
  return PNG.sync.write(png, { colorType: 2, filterType: 2, deflateLevel: 6, deflateStrategy: 0 });
}
