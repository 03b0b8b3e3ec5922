// Luhn-valid TEST card numbers from a BIN. Never expiry dates or CVVs: number|MM|YYYY|CVV combos are the
// format of card-testing fraud, and test numbers need none.
import crypto from 'node:crypto';
import creditCardType from 'credit-card-type';
import { reply, type Adapter } from '../../engine/types.js';
import { luhnCheckDigit } from './_luhn.js';

const COUNT = 10;

// Random bytes drawn in large batches: a draw per request (let alone per digit) costs a system call.
// Rejection sampling keeps the digits uniform: bytes of 250 and above are skipped.
let pool = Buffer.alloc(0);
let at = 0;
function digit(): string {
  for (;;) {
    if (at >= pool.length) { pool = crypto.randomBytes(65536); at = 0; }
    const byte = pool[at++];
    if (byte < 250) return String(byte % 10);
  }
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

const ccgen: Adapter = async (params) => {
  const bin = String(params.bin);
  const match = brandOf(bin);
  const length = match?.type === 'american-express' ? 15 : 16;
  const cards = new Set<string>();
  while (cards.size < COUNT) {
    let body = bin;
    while (body.length < length - 1) body += digit();
    cards.add(body + luhnCheckDigit(body));
  }
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
