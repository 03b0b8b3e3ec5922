// Luhn-valid TEST card numbers from a BIN. Never expiry dates or CVVs: number|MM|YYYY|CVV combos are the
// format of card-testing fraud, and test numbers need none.
import crypto from 'node:crypto';
import creditCardType from 'credit-card-type';
import { reply, type Adapter } from '../../engine/types.js';
import { luhnCheckDigit } from './_luhn.js';

const COUNT = 10;

const ccgen: Adapter = async (params) => {
  const bin = String(params.bin);
  const match = creditCardType(bin)[0];
  const length = match?.type === 'american-express' ? 15 : 16;
  const cards = new Set<string>();
  while (cards.size < COUNT) {
    let body = bin;
    while (body.length < length - 1) body += String(crypto.randomInt(10));
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
