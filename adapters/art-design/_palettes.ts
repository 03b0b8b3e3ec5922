// Colour palettes for a keyword, offline, in ColorMagic's shape {id, text, colors, tags}: a small
// hand-made lexicon of moods and places (sunset, ocean, forest…), plus the Name That Color names that
// contain the keyword (blue, rose, cobalt…), each seed expanded with The Color API's harmonies.
import { schemeColors } from './_schemes.js';
import { namedColors } from './_color-names.js';

export interface Palette {
  id: string | null;
  text: string | null;
  colors: string[];
  tags: string[];
}

/** Our own five-colour palettes: keyword → colours from its typical hue and tone. */
const LEXICON: Record<string, string[]> = {
  sunset: ['FF5E3A', 'FF9A3C', 'FFD166', 'C2185B', '5C2A6B'],
  sunrise: ['FFB88C', 'FFD9A0', 'FFF1C1', 'F49AC2', '8FB8DE'],
  ocean: ['03256C', '2541B2', '1768AC', '06BEE1', 'A6E1FA'],
  beach: ['F6D7A7', 'F5E8C7', '8FD6E1', '2BA6C4', 'FFFFFF'],
  sky: ['87CEEB', 'B0E0F6', 'E0F4FF', '4A90D9', 'FFFFFF'],
  forest: ['0B3D20', '1E5631', '4C9A2A', 'A4DE02', '6B4226'],
  jungle: ['004B23', '006400', '38B000', '9EF01A', '7F5539'],
  nature: ['386641', '6A994E', 'A7C957', 'F2E8CF', 'BC4749'],
  desert: ['EDC9AF', 'D2A679', 'C2703D', '8B5A2B', 'F4E1C1'],
  autumn: ['8C2F00', 'C44900', 'E07A1F', 'F2B134', '5B3A29'],
  spring: ['B8E994', 'F8C8DC', 'FFF3B0', '9AD1D4', '78C091'],
  summer: ['FFD60A', 'FF8C42', 'FF3C38', '00B4D8', '90E0EF'],
  winter: ['E3F2FD', 'BBDEFB', '90A4AE', '37474F', 'FFFFFF'],
  snow: ['FFFAFA', 'F0F4F8', 'D9E2EC', 'BCCCDC', '9FB3C8'],
  ice: ['D6F1FF', 'A7E0F9', '6EC6F0', '3A9AD9', 'EAF8FF'],
  fire: ['6A040F', '9D0208', 'D00000', 'E85D04', 'FFBA08'],
  night: ['0B0C2A', '1B1B3A', '2E2E5C', '4B4E8A', 'C9CBE8'],
  space: ['000000', '14213D', '3D2C8D', '916BBF', 'C996CC'],
  galaxy: ['1A1A40', '270082', '7A0BC0', 'FA58B6', 'F9E6FF'],
  neon: ['FF00FF', '00FFFF', '39FF14', 'FFFF00', 'FF3131'],
  pastel: ['FFB5E8', 'B28DFF', 'AFF8DB', 'FFF5BA', 'ACE7FF'],
  vintage: ['D8A47F', 'EF8354', 'A7754D', '6B4E3D', 'EEE0CB'],
  retro: ['F4A259', 'F4E285', '8CB369', '5B8E7D', 'BC4B51'],
  coffee: ['3E2723', '5D4037', '8D6E63', 'BCAAA4', 'EFEBE9'],
  chocolate: ['2D1B14', '4E2A1E', '7B3F00', 'A0522D', 'D2A679'],
  wine: ['4A0E1F', '722F37', '8E3B46', 'B85C6E', 'E8C4C4'],
  love: ['FF4D6D', 'FF758F', 'FFB3C1', 'C9184A', '800F2F'],
  flower: ['F72585', 'B5179E', '7209B7', 'FFC6FF', '70E000'],
  garden: ['2D6A4F', '52B788', 'B7E4C7', 'FFB4A2', 'E5989B'],
  tropical: ['00A6A6', 'FFD23F', 'F26419', 'EE4266', '3BCEAC'],
  earth: ['5C4033', '8B6D5C', 'A98467', 'ADC178', '6C584C'],
  candy: ['FF87AB', 'FFC4D6', 'CDB4DB', 'A2D2FF', 'FFAFCC'],
  gold: ['7A5C12', 'B8860B', 'D4AF37', 'F2D16B', 'FFF3C4'],
  silver: ['5F6A72', '8A959E', 'C0C0C0', 'DDE1E4', 'F5F7F8'],
  calm: ['A8DADC', 'F1FAEE', '457B9D', '1D3557', 'E9F5DB'],
  dark: ['0D0D0D', '1A1A1D', '2C2C34', '4E4E50', '6F2232'],
  christmas: ['B3000C', 'D62828', '1B5E20', '2E7D32', 'F1E9DA'],
  halloween: ['FF7518', '1B1B1B', '6A0DAD', 'F5F5F5', '3E8914'],
  wedding: ['FFFFFF', 'F8EDEB', 'FEC5BB', 'D8E2DC', 'C9ADA7'],
  corporate: ['0A2342', '2C5282', '718096', 'E2E8F0', 'F6AD55'],
};

const ALIASES: Record<string, string> = {
  sea: 'ocean',
  water: 'ocean',
  marine: 'ocean',
  dusk: 'sunset',
  dawn: 'sunrise',
  woods: 'forest',
  tree: 'forest',
  trees: 'forest',
  fall: 'autumn',
  cosmos: 'space',
  universe: 'galaxy',
  romance: 'love',
  romantic: 'love',
  flowers: 'flower',
  floral: 'flower',
  sand: 'desert',
  cafe: 'coffee',
  mocha: 'coffee',
  cocoa: 'chocolate',
  flame: 'fire',
  lava: 'fire',
  midnight: 'night',
  xmas: 'christmas',
  golden: 'gold',
  sweet: 'candy',
  business: 'corporate',
  peaceful: 'calm',
  relax: 'calm',
  tropics: 'tropical',
  summertime: 'summer',
};

const SCHEMES = ['analogic', 'monochrome', 'complement', 'triad', 'analogic-complement', 'quad'];
const MAX_PALETTES = 12;
const MAX_NAMED_SEEDS = 3;

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
const hash = (colors: string[]) => colors.join('');

/** A lexicon entry for a word, allowing a plural. */
function lexiconFor(word: string): [string, string[]] | undefined {
  for (const w of [word, word.replace(/s$/, ''), word.replace(/es$/, '')]) {
    const k = ALIASES[w] ?? w;
    if (LEXICON[k]) return [k, LEXICON[k]];
  }
  return undefined;
}

/** Named colours containing the keyword's words: an exact name first, then the shortest names. */
function namedSeeds(q: string): { hex: string; name: string }[] {
  const wanted = words(q);
  if (wanted.length === 0) return [];
  const hits = namedColors().filter((c) => {
    const name = words(c.name);
    return wanted.every((w) => name.includes(w));
  });
  hits.sort((a, b) => Number(b.name.toLowerCase() === q) - Number(a.name.toLowerCase() === q) || a.name.length - b.name.length);
  return hits.slice(0, MAX_NAMED_SEEDS).map((c) => ({ hex: c.hex, name: c.name }));
}

const title = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

export function embeddedPalettes(query: string): Palette[] {
  const q = query.trim().toLowerCase();
  const out: Palette[] = [];
  const seen = new Set<string>();
  const add = (p: Palette) => {
    if (out.length >= MAX_PALETTES || seen.has(hash(p.colors))) return;
    seen.add(hash(p.colors));
    out.push(p);
  };
  const harmonies: { seed: string; label: string; tags: string[] }[] = [];

  for (const w of new Set(words(q))) {
    const hit = lexiconFor(w);
    if (!hit) continue;
    const [key, colors] = hit;
    add({ id: `emb-${key}`, text: title(key), colors: colors.map((c) => `#${c}`), tags: [key, w].filter((t, i, a) => a.indexOf(t) === i) });
    harmonies.push({ seed: colors[0], label: title(key), tags: [key] });
  }
  for (const c of namedSeeds(q)) harmonies.push({ seed: c.hex, label: c.name, tags: [c.name.toLowerCase()] });

  // Round-robin over seeds so every seed shows up before any gets a second harmony.
  for (const scheme of SCHEMES) {
    for (const h of harmonies) {
      add({
        id: `emb-${h.seed.toLowerCase()}-${scheme}`,
        text: `${h.label} ${scheme.replace('-', ' ')}`,
        colors: schemeColors(h.seed, scheme).map((c) => `#${c}`),
        tags: [...h.tags, scheme],
      });
    }
  }
  return out;
}
