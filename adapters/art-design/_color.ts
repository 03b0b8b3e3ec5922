// Colour arithmetic shared by color-scheme, art-search and noise-image: hex ↔ RGB ↔ HSL/HSV/CMYK as
// 0–1 fractions, and the colour object of The Color API (`/id`). Our own code, written from the
// upstream's documented behaviour (upstreams.md §12), not from its source.
import { nameOf } from './_color-names.js';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}
export interface Hsl {
  h: number;
  s: number;
  l: number;
}

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));

/** `#0047ab`, `0047AB` → `0047AB`; undefined when not six hex digits. */
export function cleanHex(input: string): string | undefined {
  const m = /^#?([0-9a-f]{6})$/i.exec(input.trim());
  return m ? m[1].toUpperCase() : undefined;
}

/** RGB as integers 0–255. */
export function hexToRgb(clean: string): Rgb {
  const n = parseInt(clean, 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function rgbToHex({ r, g, b }: Rgb): string {
  return [r, g, b]
    .map((v) =>
      Math.round(Math.max(0, Math.min(255, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
    .toUpperCase();
}

/** RGB fractions → HSL fractions (h in [0,1)). */
function rgbToHsl(r: number, g: number, b: number): Hsl {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  const l = (max + min) / 2;
  if (d <= 0) return { h: 0, s: 0, l };
  const s = d / (l < 0.5 ? max + min : 2 - max - min);
  let h: number;
  if (max === r) h = (g - b) / d / 6;
  else if (max === g) h = ((b - r) / d + 2) / 6;
  else h = ((r - g) / d + 4) / 6;
  if (h < 0) h += 1;
  if (h >= 1) h -= 1;
  return { h, s: clamp01(s), l: clamp01(l) };
}

/** HSL fractions → RGB fractions; h is taken modulo 1, s and l are clamped. */
function hslToRgb(hsl: Hsl): Rgb {
  const h = clamp01(hsl.h % 1);
  const s = clamp01(hsl.s);
  const l = clamp01(hsl.l);
  const H = h * 6;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs((H % 2) - 1));
  const [r, g, b] = H < 1 ? [c, x, 0] : H < 2 ? [x, c, 0] : H < 3 ? [0, c, x] : H < 4 ? [0, x, c] : H < 5 ? [x, 0, c] : [c, 0, x];
  const m = l - c / 2;
  return { r: clamp01(r + m), g: clamp01(g + m), b: clamp01(b + m) };
}

/** HSL fractions → `RRGGBB`. */
export function hslToHex(hsl: Hsl): string {
  const { r, g, b } = hslToRgb(hsl);
  return rgbToHex({ r: r * 255, g: g * 255, b: b * 255 });
}

export function hexToHsl(clean: string): Hsl {
  const { r, g, b } = hexToRgb(clean);
  return rgbToHsl(r / 255, g / 255, b / 255);
}

function rgbToHsv(r: number, g: number, b: number): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  return { h: rgbToHsl(r, g, b).h, s: max > 0 ? d / max : 0, v: max };
}

function rgbToCmyk(r: number, g: number, b: number): { c: number; m: number; y: number; k: number } {
  const k = 1 - Math.max(r, g, b);
  // Pure black: the upstream divides 0 by 0 here and answers null; we answer 0,0,0,1.
  if (k >= 1) return { c: 0, m: 0, y: 0, k: 1 };
  return { c: (1 - r - k) / (1 - k), m: (1 - g - k) / (1 - k), y: (1 - b - k) / (1 - k), k };
}

/** WCAG relative luminance of sRGB fractions. */
function luminance(r: number, g: number, b: number): number {
  const lin = (v: number) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Black or white, whichever contrasts more with the colour (WCAG contrast ratio). */
function contrastOf(clean: string): string {
  const { r, g, b } = hexToRgb(clean);
  const L = luminance(r / 255, g / 255, b / 255);
  return 1.05 / (L + 0.05) >= (L + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

const pct = (v: number) => Math.round(v * 100);

/**
 * The colour object of The Color API for `RRGGBB`. Its XYZ block is left out: the upstream computes it
 * with a bitwise XOR where a power was meant, so its numbers are not XYZ.
 */
export function describeColor(clean: string) {
  const { r, g, b } = hexToRgb(clean);
  const [fr, fg, fb] = [r / 255, g / 255, b / 255];
  const hsl = rgbToHsl(fr, fg, fb);
  const hsv = rgbToHsv(fr, fg, fb);
  const cmyk = rgbToCmyk(fr, fg, fb);
  const H = Math.round(hsl.h * 360),
    S = pct(hsl.s),
    L = pct(hsl.l);
  const V = { h: Math.round(hsv.h * 360), s: pct(hsv.s), v: pct(hsv.v) };
  const K = { c: pct(cmyk.c), m: pct(cmyk.m), y: pct(cmyk.y), k: pct(cmyk.k) };
  const name = nameOf(clean);
  return {
    hex: { value: `#${clean}`, clean },
    rgb: { fraction: { r: fr, g: fg, b: fb }, r, g, b, value: `rgb(${r}, ${g}, ${b})` },
    hsl: { fraction: hsl, h: H, s: S, l: L, value: `hsl(${H}, ${S}%, ${L}%)` },
    hsv: { fraction: hsv, ...V, value: `hsv(${V.h}, ${V.s}%, ${V.v}%)` },
    cmyk: { fraction: cmyk, ...K, value: `cmyk(${K.c}, ${K.m}, ${K.y}, ${K.k})` },
    name: { value: name.name, closest_named_hex: `#${name.hex}`, exact_match_name: name.exact, distance: name.distance },
    contrast: { value: contrastOf(clean) },
  };
}
