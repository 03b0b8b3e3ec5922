// Durations of the catalog (`cache: 6h`, `timeout: 30s`, `window: 15m`) in milliseconds.
// The catalog schema already restricts the format, so a bad value here is a programming error.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(String(text).trim());
  if (!m) throw new Error(`Invalid duration "${text}": expected a number followed by ms, s, m, h or d`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
