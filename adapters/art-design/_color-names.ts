// Colour names: Chirag Mehta's "Name That Color" list (npm `ntc`, CC BY 2.5), the list The Color API
// names colours from. `ntc` exposes its list but no distance, and keeps it in module globals, so we read
// the list once and do the nearest match ourselves: exact hex, else the least Δrgb² + 2·Δhsl², with HSL
// scaled to 0–255 and truncated as the original does.
import { createRequire } from 'node:module';

export interface NamedColor {
  hex: string;
  name: string;
  r: number;
  g: number;
  b: number;
  h: number;
  s: number;
  l: number;
}

let list: NamedColor[] | undefined;

/** HSL in the 0–255 integer scale of Name That Color. */
function ntcHsl(r: number, g: number, b: number): [number, number, number] {
  const [fr, fg, fb] = [r / 255, g / 255, b / 255];
  const max = Math.max(fr, fg, fb);
  const min = Math.min(fr, fg, fb);
  const d = max - min;
  const l = (max + min) / 2;
  const s = l > 0 && l < 1 ? d / (l < 0.5 ? 2 * l : 2 - 2 * l) : 0;
  let h = 0;
  if (d > 0) {
    if (max === fr && max !== fg) h += (fg - fb) / d;
    if (max === fg && max !== fb) h += 2 + (fb - fr) / d;
    if (max === fb && max !== fr) h += 4 + (fr - fg) / d;
    h /= 6;
  }
  return [Math.trunc(h * 255), Math.trunc(s * 255), Math.trunc(l * 255)];
}

export function namedColors(): NamedColor[] {
  if (!list) {
    const ntc = createRequire(import.meta.url)('ntc') as { names: [string, string, ...unknown[]][] };
    list = ntc.names.map(([hex, name]) => {
      const n = parseInt(hex, 16);
      const r = (n >> 16) & 255,
        g = (n >> 8) & 255,
        b = n & 255;
      const [h, s, l] = ntcHsl(r, g, b);
      return { hex: hex.toUpperCase(), name, r, g, b, h, s, l };
    });
  }
  return list;
}

export function nameOf(clean: string): { hex: string; name: string; exact: boolean; distance: number } {
  const n = parseInt(clean, 16);
  const r = (n >> 16) & 255,
    g = (n >> 8) & 255,
    b = n & 255;
  const [h, s, l] = ntcHsl(r, g, b);
  let best: NamedColor | undefined;
  let bestD = Infinity;
  for (const c of namedColors()) {
    if (c.hex === clean) return { hex: c.hex, name: c.name, exact: true, distance: 0 };
    const d = (r - c.r) ** 2 + (g - c.g) ** 2 + (b - c.b) ** 2 + 2 * ((h - c.h) ** 2 + (s - c.s) ** 2 + (l - c.l) ** 2);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return { hex: best!.hex, name: best!.name, exact: false, distance: bestD };
}
