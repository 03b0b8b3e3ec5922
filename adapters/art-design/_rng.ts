// A small seedable PRNG (mulberry32) for generated art: tests pass a seed and get the same image every
// time; requests get a seed from the OS. Not for secrets.
import crypto from 'node:crypto';

export interface Rng {
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
}

export function createRng(seed: number = crypto.randomInt(2 ** 32 - 1)): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
