// What tr and its fallback read of the caller's query: the text, `from` (undefined for auto) and `to`.
import type { TrParams } from './_catalog.js';

export function callerLanguages({ text, from, to }: TrParams): { text: string; from: string | undefined; to: string } {
  return { text, from: from && from.toLowerCase() !== 'auto' ? from : undefined, to };
}
