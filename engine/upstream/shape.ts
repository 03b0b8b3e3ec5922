// Checks of upstream bodies before they are reshaped. A body of the wrong shape means the provider's API
// changed under us (502 upstream_changed: its own code, metric and status, so an operator can tell a moved
// API from a down one), never a TypeError of ours (500).
import { upstreamChanged, type ApiError } from '../errors.js';

export type Rec = Record<string, unknown>;

export const isRecord = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);

export const malformed = (): ApiError => upstreamChanged('The upstream service answered with malformed data');

/** The body as an object, or a 502. */
export function record(x: unknown): Rec {
  if (!isRecord(x)) throw malformed();
  return x;
}

/** The objects of an array (junk entries dropped), or a 502 when it is not an array. */
export function records(x: unknown): Rec[] {
  if (!Array.isArray(x)) throw malformed();
  return x.filter(isRecord);
}

/** A finite number, or undefined. */
export const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
