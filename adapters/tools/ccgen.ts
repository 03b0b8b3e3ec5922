// Luhn-valid TEST card numbers from a BIN. Never expiry dates or CVVs: number|MM|YYYY|CVV combos are the
// format of card-testing fraud, and test numbers need none.
import crypto from 'node:crypto';
import creditCardType from 'credit-card-type';
import { reply, type Adapter } from '../../engine/types.js';
import { luhnCheckDigit } from './_luhn.js';

const COUNT = 10;

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
    // Rejection sampling keeps the digits uniform: bytes of 250 and above are skipped.
    let body = bin;
    for (const byte of crypto.randomBytes(2 * (length - bin.length))) {
      if (body.length === length - 1) break;
      if (byte < 250) body += String(byte % 10);
    }
    if (body.length < length - 1) continue;
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
