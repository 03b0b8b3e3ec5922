// The English name of a region code (US → United States, XK → Kosovo), as Intl.DisplayNames(['en'],
// { type: 'region' }) gives it: read from a table (region-names.json, made by scripts/data-files.mjs from
// this Node's ICU), because asking ICU at run time keeps ~4.5 MB of its data resident for the process's life.
import NAMES from './region-names.json' with { type: 'json' };

const names: Record<string, string | undefined> = NAMES;

/** The region's English name; undefined for a code no region has. */
export function regionName(code: string): string | undefined {
  const upper = code.toUpperCase();
  return Object.hasOwn(names, upper) ? names[upper] : undefined;
}
