// Verses per chapter of the Bhagavad Gita (18 chapters, 701 verses as the upstream counts them), used to
// check chapter, verse and serial numbers before any call, and to turn a serial into chapter and verse.
export const GITA_VERSES = [47, 72, 43, 42, 29, 47, 30, 28, 34, 42, 55, 20, 35, 27, 20, 24, 28, 78];

const GITA_TOTAL = GITA_VERSES.reduce((a, b) => a + b, 0);

/** Serial 1…701 → chapter and verse (serial 48 is 2.1). */
export function gitaSerial(serial: number): { chapter: number; verse: number } {
  let rest = serial;
  for (let i = 0; i < GITA_VERSES.length; i++) {
    if (rest <= GITA_VERSES[i]) return { chapter: i + 1, verse: rest };
    rest -= GITA_VERSES[i];
  }
  throw new RangeError(`serial ${serial} is past ${GITA_TOTAL}`);
}
