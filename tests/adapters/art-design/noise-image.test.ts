// art-design/noise-image: php-noise's algorithm, embedded. Through HTTP: the data URL, the raw PNG for
// Accept: image/png, the bounds. Directly with a seeded PRNG: the size formula, both palettes, the grid.
import { PNG } from 'pngjs';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { renderNoise, encodePng, type NoiseOptions } from '../../../adapters/art-design/_noise.js';
import { createRng } from '../../../adapters/art-design/_rng.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'art-design/noise-image', upstreams: {} });
const { get } = s;
const decode = (dataUrl: string) => PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
const pixel = (png: { width: number; data: Buffer }, x: number, y: number) => {
  const i = (y * png.width + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]];
};

test('defaults: 50 tiles of 7 px, no border, brightness, a random base colour → 350 px PNG data URL', async () => {
  const res = await get();
  expectAnswer(res, 'embedded', 'art-design/noise-image');
  expect(res.body.data).toMatchObject({ width: 350, height: 350, tiles: 50, tileSize: 7, borderWidth: 0, mode: 'brightness' });
  const png = decode(res.body.data.base64);
  expect([png.width, png.height]).toEqual([350, 350]);
});

test('hex, tiles, tileSize, borderWidth and mode are honoured; W = tiles·(tileSize+borderWidth)', async () => {
  const res = await get({ hex: '#0047ab', tiles: '4', tileSize: '5', borderWidth: '2', mode: 'brightness' });
  expect(res.status).toBe(200);
  expectMatchesSchema('art-design/noise-image', res.body.data);
  expect(res.body.data).toMatchObject({ width: 28, height: 28, hex: '#0047AB', borderColor: '#0047AB', mode: 'brightness' });
  const png = decode(res.body.data.base64);
  // The border strip after the first tile is the base colour.
  expect(pixel(png, 5, 0)).toEqual([0, 71, 171]);
  expect(pixel(png, 0, 6)).toEqual([0, 71, 171]);
});

test('Accept: image/png answers the raw PNG', async () => {
  const res = await get({ hex: 'FF6B35', tiles: '3', tileSize: '2', mode: 'around' })
    .set('Accept', 'image/png')
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^image\/png/);
  const png = PNG.sync.read(res.body as Buffer);
  expect(png.width).toBe(6);
});

test('random answers are not cached', async () => {
  await get({ tiles: '2', tileSize: '2' });
  const second = await get({ tiles: '2', tileSize: '2' });
  expect(second.body.metadata.cached).toBe(false);
});

test.each([
  [{ tiles: '0' }, 'Invalid value for tiles: must be between 1 and 50'],
  [{ tiles: '51' }, 'Invalid value for tiles: must be between 1 and 50'],
  [{ tileSize: '21' }, 'Invalid value for tileSize: must be between 1 and 20'],
  [{ borderWidth: '-1' }, 'Invalid value for borderWidth: must be between 0 and 15'],
  [{ borderWidth: '16' }, 'Invalid value for borderWidth: must be between 0 and 15'],
  [{ tiles: 'ten' }, 'Invalid value for tiles: must be an integer'],
  [{ mode: 'wild' }, 'Invalid value for mode: must be one of brightness, around'],
  [{ hex: 'XYZXYZ' }, 'Invalid value for hex: must be six hex digits such as 0047AB'],
])('%j → 400', async (q, message) => {
  const res = await get(q);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ success: false, error: message, code: 'bad_input' });
});

// ---- the algorithm, with a seeded PRNG ----

const base = { r: 100, g: 150, b: 200 };
const opts = (o: Partial<NoiseOptions>): NoiseOptions => ({ base, tiles: 6, tileSize: 3, borderWidth: 0, mode: 'brightness', ...o });
const tileColours = (img: ReturnType<typeof renderNoise>, o: NoiseOptions) => {
  const out: string[] = [];
  const cell = o.tileSize + o.borderWidth;
  for (let tx = 0; tx < o.tiles; tx++) {
    for (let ty = 0; ty < o.tiles; ty++) {
      const i = (ty * cell * img.width + tx * cell) * 4;
      out.push(`${img.rgba[i]},${img.rgba[i + 1]},${img.rgba[i + 2]}`);
    }
  }
  return out;
};

test('the same seed draws the same image', () => {
  const a = renderNoise(opts({ mode: 'around' }), createRng(42));
  const b = renderNoise(opts({ mode: 'around' }), createRng(42));
  const c = renderNoise(opts({ mode: 'around' }), createRng(43));
  expect(a.rgba.equals(b.rgba)).toBe(true);
  expect(a.rgba.equals(c.rgba)).toBe(false);
});

test('brightness: tiles are c ∓ c·1.5·i %, i = 1…5, plus the base only without a border', () => {
  const expected = new Set<string>();
  for (let i = 1; i <= 5; i++) {
    for (const f of [1 - (1.5 * i) / 100, 1 + (1.5 * i) / 100])
      expected.add([base.r, base.g, base.b].map((v) => Math.round(v * f)).join(','));
  }
  const o = opts({ tiles: 30 });
  const noBorder = new Set(tileColours(renderNoise(o, createRng(1)), o));
  expect([...noBorder].every((c) => expected.has(c) || c === '100,150,200')).toBe(true);
  expect(noBorder.has('100,150,200')).toBe(true);

  const ob = opts({ tiles: 30, borderWidth: 1 });
  const img = renderNoise(ob, createRng(1));
  const withBorder = new Set(tileColours(img, ob));
  expect(withBorder.has('100,150,200')).toBe(false);
  expect(img.border).toEqual(base);
});

test('brightness clamps to 0–255', () => {
  const o = opts({ base: { r: 255, g: 0, b: 250 } });
  const colours = tileColours(renderNoise(o, createRng(7)), o).map((c) => c.split(',').map(Number));
  expect(colours.every(([r, g, b]) => r <= 255 && g === 0 && b <= 255)).toBe(true);
});

test('around: each channel within 20 values of the base; the border colour never fills a tile', () => {
  const o = opts({ base: { r: 5, g: 128, b: 250 }, tiles: 40, borderWidth: 1, mode: 'around' });
  const img = renderNoise(o, createRng(3));
  const colours = tileColours(img, o);
  const border = `${img.border.r},${img.border.g},${img.border.b}`;
  expect(colours).not.toContain(border);
  for (const [r, g, b] of colours.map((c) => c.split(',').map(Number))) {
    expect(r).toBeGreaterThanOrEqual(0);
    expect(r).toBeLessThanOrEqual(19);
    expect(g).toBeGreaterThanOrEqual(118);
    expect(g).toBeLessThanOrEqual(138);
    expect(b).toBeGreaterThanOrEqual(236);
  }
  expect(new Set(colours).size).toBeGreaterThan(100);
});

test('grid: border strips after every tile, in the border colour', () => {
  const o = opts({ tiles: 2, tileSize: 2, borderWidth: 1 });
  const img = renderNoise(o, createRng(5));
  expect(img.width).toBe(6);
  const png = PNG.sync.read(encodePng(img.width, img.height, img.rgba));
  for (const [x, y] of [
    [2, 0],
    [2, 4],
    [5, 5],
    [0, 2],
    [4, 5],
  ])
    expect(pixel(png, x, y)).toEqual([100, 150, 200]);
  expect(pixel(png, 0, 0)).not.toEqual([100, 150, 200]);
});
