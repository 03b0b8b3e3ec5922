// What a Free account gets, said the same way on the landing page and the sign-up page: the spec's shared
// free key (its allowance counted per client address, shared by everyone calling from that address), or,
// with FREE_PERSONAL_KEYS, a personal key with an allowance of its own.
import { html, type Safe } from '../../engine/html.js';
import type { PlanSpec } from '../../engine/catalog/load.js';
import { count, windowText } from './format.js';

export interface FreeTier {
  plan: Pick<PlanSpec, 'limit' | 'window'>;
  /** FREE_PERSONAL_KEYS: free accounts hold a personal key. */
  personal: boolean;
}

export function freeTierText(f: FreeTier): Safe {
  const allowance = `${count(f.plan.limit)} requests per ${windowText(f.plan.window)}`;
  return f.personal
    ? html`A free account gets a <strong>personal key</strong> with an allowance of its own: <strong>${allowance}</strong>, whatever address calls with it.`
    : html`A free account calls with the <strong>shared free key</strong>: <strong>${allowance} for each client address (IP)</strong>, shared by everyone who calls with that key from the same address. Premium and Enterprise accounts get personal keys, which spend their account's own allowance.`;
}
