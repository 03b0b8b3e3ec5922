// The scheme generator of The Color API (`/scheme`), reimplemented from its documented behaviour:
// a scheme is a list of groups, each with a share of the colours and a rule per HSL channel of the form
// base + factor·x, where x is an offset that grows by 0.5/count after every colour. The s and l offsets
// start below the seed so the run is centred on it (within [0,1]); the hue offset starts at 0.
import { hexToHsl, hslToHex } from './_color.js';

/** How one channel of a group moves: a constant shift plus a multiple of the running offset. */
interface Channel {
  base: 'seed' | 'zero';
  shift?: number;
  factor: number;
}
interface Group {
  ratio: number;
  h: Channel;
  s: Channel;
  l: Channel;
}

const ch = (factor: number, shift = 0): Channel => ({ base: 'seed', shift, factor });
const zero: Channel = { base: 'zero', factor: 0 };
const grey: Group = { ratio: 0.4, h: zero, s: zero, l: ch(1) };
const mono = (ratio: number): Group => ({ ratio, h: ch(0), s: ch(0.1), l: ch(1) });
/** complement, triad and quad: a fixed hue turn, saturation and lightness walking a quarter step. */
const turn = (ratio: number, shift: number): Group => ({ ratio, h: ch(0, shift), s: ch(0.25), l: ch(0.25) });

const SCHEMES: Record<string, Group[]> = {
  monochrome: [mono(1)],
  'monochrome-dark': [mono(0.6), grey],
  'monochrome-light': [grey, mono(0.6)],
  analogic: [{ ratio: 1, h: ch(0.5), s: ch(0.1), l: ch(0.1) }],
  complement: [turn(0.4, 0.5), turn(0.6, 0)],
  'analogic-complement': [
    { ratio: 0.4, h: ch(0, 0.5), s: ch(0.5), l: ch(0.5) },
    { ratio: 0.6, h: ch(0.75), s: ch(0.1), l: ch(0.1) },
  ],
  triad: [turn(0.25, 0.33), turn(0.25, -0.33), turn(0.5, 0)],
  quad: [turn(0.2, 0.25), turn(0.2, 0.5), turn(0.2, -0.25), turn(0.4, 0)],
};

export const SCHEME_NAMES = Object.keys(SCHEMES);

/** How many colours each group gets: every colour goes to the group with the largest remaining share. */
function shares(groups: Group[], count: number): number[] {
  const left = groups.map((g) => g.ratio);
  const counts = groups.map(() => 0);
  for (let i = 0; i < count; i++) {
    let best = 0;
    for (let j = 1; j < left.length; j++) if (left[j] > left[best]) best = j;
    left[best] -= 1 / count;
    counts[best] += 1;
  }
  return counts;
}

const apply = (c: Channel, seed: number, x: number) => (c.base === 'zero' ? 0 : seed + (c.shift ?? 0) + c.factor * x);

/** `count` colours (`RRGGBB`) of the scheme around the seed colour. */
export function schemeColors(seedHex: string, scheme: string, count = 5): string[] {
  const groups = SCHEMES[scheme];
  if (!groups) throw new Error(`unknown scheme ${scheme}`);
  const seed = hexToHsl(seedHex);
  const step = 0.5 / count;
  const sMax = Math.min(1, seed.s + 0.25);
  const lMax = Math.min(1, seed.l + 0.25);
  let hx = 0;
  let sx = Math.max(0, sMax - 0.5) - seed.s;
  let lx = Math.max(0, lMax - 0.5) - seed.l;
  const out: string[] = [];
  const counts = shares(groups, count);
  groups.forEach((g, gi) => {
    for (let k = 0; k < counts[gi]; k++) {
      let h = apply(g.h, seed.h, hx);
      if (h < 0) h += 1;
      if (h > 1) h -= 1;
      out.push(hslToHex({ h, s: apply(g.s, seed.s, sx), l: apply(g.l, seed.l, lx) }));
      hx += step;
      sx += step;
      lx += step;
    }
  });
  return out;
}
