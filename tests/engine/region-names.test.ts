// engine/region-names.ts: the table gives what ICU gives, for every two-letter code (a Node with a newer ICU
// fails here until `node scripts/data-files.mjs` makes the table again).
import { regionName } from '../../engine/region-names.js';

const icu = new Intl.DisplayNames(['en'], { type: 'region' });
const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

test('every two-letter code is named as Intl.DisplayNames names it, or not at all', () => {
  for (const code of letters.flatMap((a) => letters.map((b) => a + b))) {
    const named = icu.of(code);
    expect([code, regionName(code)]).toEqual([code, named === code ? undefined : named]);
  }
});

test('lower case is read as upper case; what is not a code has no name', () => {
  expect(regionName('gb')).toBe('United Kingdom');
  expect(regionName('XK')).toBe('Kosovo');
  for (const junk of ['', 'U', 'USA', '12', 'toString', '__proto__']) expect(regionName(junk)).toBeUndefined();
});
