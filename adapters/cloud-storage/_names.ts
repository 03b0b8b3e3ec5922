// Names callers give to what they host. They only ever reach our own pages escaped and headers encoded,
// but they are still trimmed of control characters (and, for file names, of any path).

/** A title as given, without control characters or surrounding blanks, at most `max` characters. */
export function cleanTitle(raw: unknown, max = 255): string {
  return String(raw ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

/** A file name without its directories; '' when nothing usable is left. */
export function cleanFileName(raw: unknown, max = 255): string {
  const base = cleanTitle(
    String(raw ?? '')
      .split(/[\\/]/)
      .pop(),
    max,
  );
  return base === '.' || base === '..' ? '' : base;
}
