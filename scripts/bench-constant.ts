/** What the bench's constant endpoint answers: its adapter (written by bench.ts) and bare node:http's envelope (bench-targets.ts). */
export const CONSTANT = { card: '4571730000000008', brand: 'visa' };
