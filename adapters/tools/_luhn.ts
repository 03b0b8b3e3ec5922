// The Luhn (mod 10) checksum of card numbers.

/** The check digit that completes the first `n` of `digits` (each 0-9). */
export function checkDigit(digits: ArrayLike<number>, n = digits.length): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    let d = digits[n - 1 - i];
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

function luhnCheckDigit(partial: string): string {
  return String(checkDigit(Array.from(partial, Number)));
}

export function luhnValid(number: string): boolean {
  return /^\d{2,}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === number.at(-1);
}
