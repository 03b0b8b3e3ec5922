// Names callers give to what they host. They only ever reach our own pages escaped and headers encoded,
// but they are still trimmed of control characters (and, for file names, of any path).

/** A title as given, without control characters or surrounding blanks, at most `max` characters. */
export function cleanTitle(raw: unknown, max = 255): string {
  return String(raw ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** A file name without its directories; '' when nothing usable is left. */
export function cleanFileName(raw: unknown, max = 255): string {
  const base = cleanTitle(String(raw ?? '').split(/[\\/]/).pop(), max);
  return base === '.' || base === '..' ? '' : base;
}

/**
 * Multipart file names arrive decoded as latin1 (busboy's default for a filename without charset), so
 * the UTF-8 name `é.pdf` shows up as `Ã©.pdf`. Re-read such a name as UTF-8 when its bytes are valid
 * UTF-8; a name with characters beyond latin1, or whose bytes are not UTF-8, is kept as it is.
 */
export function utf8Name(name: string): string {
  if (/[^\x00-\xff]/.test(name) || !/[\x80-\xff]/.test(name)) return name;
  const decoded = Buffer.from(name, 'latin1').toString('utf8');
  return decoded.includes('\uFFFD') ? name : decoded;
}
