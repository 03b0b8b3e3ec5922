// art-design/color-scheme: The Color API's identification and scheme algorithm, embedded. The test
// vectors of upstreams.md (0047AB monochrome and triad) must come out exactly.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { SCHEME_NAMES, schemeColors } from '../../../adapters/art-design/_schemes.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { nameOf } from '../../../adapters/art-design/_color-names.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'art-design/color-scheme', upstreams: {} });
const { get } = s;
const hexes = (colors: Array<{ hex: { value: string } }>) => colors.map((c) => c.hex.value).join(' ');

test('mode=id identifies cobalt: rgb, hsl, cmyk, exact name, white contrast', async () => {
  const res = await get({ hex: '0047AB', mode: 'id' });
  expectAnswer(res, 'embedded', 'art-design/color-scheme');
  expect(res.body.data).toMatchObject({
    hex: { value: '#0047AB', clean: '0047AB' },
    rgb: { r: 0, g: 71, b: 171, value: 'rgb(0, 71, 171)' },
    hsl: { h: 215, s: 100, l: 34, value: 'hsl(215, 100%, 34%)' },
    cmyk: { c: 100, m: 58, y: 0, k: 33 },
    name: { value: 'Cobalt', closest_named_hex: '#0047AB', exact_match_name: true, distance: 0 },
    contrast: { value: '#ffffff' },
  });
});

test('without mode it identifies; the # prefix and lower case are accepted', async () => {
  const res = await get({ hex: '#ffffff' });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({
    hex: { value: '#FFFFFF' },
    name: { value: 'White', exact_match_name: true },
    contrast: { value: '#000000' },
  });
});

test('a colour off the list gets the nearest name and its distance', async () => {
  const res = await get({ hex: '0047AC', mode: 'id' });
  expect(res.body.data.name).toMatchObject({ value: 'Cobalt', exact_match_name: false });
  expect(res.body.data.name.distance).toBeGreaterThan(0);
  expect(nameOf('000000')).toEqual({ hex: '000000', name: 'Black', exact: true, distance: 0 });
});

test('black has CMYK 0,0,0,100 (the upstream answers null there)', async () => {
  const res = await get({ hex: '000000' });
  expect(res.body.data.cmyk).toMatchObject({ c: 0, m: 0, y: 0, k: 100 });
});

test('test vectors: 0047AB monochrome and triad', async () => {
  const mono = await get({ hex: '0047AB', mode: 'scheme', scheme: 'monochrome' });
  expect(mono.status).toBe(200);
  expectMatchesSchema('art-design/color-scheme', mono.body.data);
  expect(hexes(mono.body.data.colors)).toBe('#01122A #02285D #023D8F #0252C3 #0167F6');
  expect(mono.body.data).toMatchObject({ mode: 'monochrome', count: '5', seed: { hex: { value: '#0047AB' } } });

  const triad = await get({ hex: '0047AB', scheme: 'triad' });
  expect(triad.status).toBe(200);
  expect(hexes(triad.body.data.colors)).toBe('#82093E #3E9008 #06459E #044AAD #024FBC');
});

test.each(['monochrome', 'monochrome-dark', 'monochrome-light', 'analogic', 'complement', 'analogic-complement', 'triad', 'quad'])(
  'scheme %s gives 5 described colours',
  async (scheme) => {
    const res = await get({ hex: 'FF5733', mode: 'scheme', scheme });
    expect(res.status).toBe(200);
    expectMatchesSchema('art-design/color-scheme', res.body.data);
    expect(res.body.data.mode).toBe(scheme);
    expect(res.body.data.colors).toHaveLength(5);
  },
);

test('the grey groups of monochrome-light/-dark come first/last', () => {
  const isGrey = (h: string) => h.slice(0, 2) === h.slice(2, 4) && h.slice(2, 4) === h.slice(4, 6);
  expect(schemeColors('0047AB', 'monochrome-light').map(isGrey)).toEqual([true, true, false, false, false]);
  expect(schemeColors('0047AB', 'monochrome-dark').map(isGrey)).toEqual([false, false, false, true, true]);
});

test("the catalog's scheme enum is exactly the algorithm's schemes", () => {
  const spec = loadCatalog(loadConfig({}).catalogDir).endpoints.find((e) => e.id === 'art-design/color-scheme');
  expect([...(spec?.params.scheme.enum ?? [])].sort()).toEqual([...SCHEME_NAMES].sort());
});

test('mode=scheme without scheme defaults to monochrome', async () => {
  const res = await get({ hex: '0047AB', mode: 'scheme' });
  expect(res.body.data.mode).toBe('monochrome');
});

test.each([
  [{ hex: 'GGGGGG' }, 'hex', 'six hex digits'],
  [{ hex: '0047A' }, 'hex', 'six hex digits'],
  [{ hex: 'fff' }, 'hex', 'six hex digits'],
  [{ hex: '0047AB', mode: 'rainbow' }, 'mode', 'must be one of id, scheme'],
  [
    { hex: '0047AB', scheme: 'pentad' },
    'scheme',
    'must be one of monochrome, monochrome-dark, monochrome-light, analogic, complement, analogic-complement, triad, quad',
  ],
])('bad %j → 400 naming %s', async (q, name, words) => {
  const res = await get(q);
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toContain(`Invalid value for ${name}`);
  expect(res.body.error).toContain(words);
});

test('missing hex → 400 Missing required parameter: hex', async () => {
  const res = await get({});
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Missing required parameter: hex');
});
