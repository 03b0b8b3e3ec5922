// Luhn-valid TEST card numbers from a BIN. Never expiry dates or CVVs: number|MM|YYYY|CVV combos are the
// format of card-testing fraud, and test numbers need none.
import crypto from 'node:crypto';
import creditCardType from 'credit-card-type';
import { reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { checkDigit } from './_luhn.js';

const COUNT = 10;

// Random bytes drawn in large batches: a draw per request (let alone per digit) costs a system call.
// Rejection sampling keeps the digits uniform: bytes of 250 and above are skipped.
let pool = Buffer.alloc(0);
let at = 0;
function randomDigit(): number {
  for (;;) {
    if (at >= pool.length) {
      pool = crypto.randomBytes(65536);
      at = 0;
    }
    const byte = pool[at++];
    if (byte < 250) return byte % 10;
  }
}

// One scratch buffer for the digits of a card: filled, then read once as a string (synchronous, so shared).
const scratch = Buffer.alloc(32);

/** A Luhn-valid number of `length` digits that starts with `bin`. */
function cardFrom(bin: string, length: number): string {
  const d = scratch;
  for (let i = 0; i < bin.length; i++) d[i] = bin.charCodeAt(i) - 48;
  for (let i = bin.length; i < length - 1; i++) d[i] = randomDigit();
  d[length - 1] = checkDigit(d, length - 1);
  for (let i = 0; i < length; i++) d[i] += 48; // digits to ASCII
  return d.toString('latin1', 0, length);
}

// credit-card-type clones its whole table on every call: remember the answer per BIN (bounded).
const brands = new Map<string, { niceType: string; type: string } | undefined>();
function brandOf(bin: string) {
  if (!brands.has(bin)) {
    if (brands.size > 10_000) brands.clear();
    brands.set(bin, creditCardType(bin)[0]);
  }
  return brands.get(bin);
}

const ccgen: Adapter<'tools/ccgen'> = async (params) => {
  const bin = params.bin;
  const match = brandOf(bin);
  const length = match?.type === 'american-express' ? 15 : 16;
  const cards = new Set<string>();
  while (cards.size < COUNT) cards.add(cardFrom(bin, length));
  return reply({
    data: {
      bin,
      brand: match?.niceType ?? null,
      length,
      test_data: true,
      notice: 'Test numbers only; not real cards.',
      cards: [...cards],
    },
    cacheable: false,
  });
};

export default ccgen;
