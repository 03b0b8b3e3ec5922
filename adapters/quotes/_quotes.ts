// What the quote endpoints share: upstream lists of {quote, author|character} checked and normalised to
// {quote, author}, and the one message for an upstream answer of the wrong shape.
import { isRecord, malformed } from '../../engine/adapter.js';

export interface Quote {
  quote: string;
  author: string | null;
}

export const unexpectedShape = malformed;
export { isRecord };

/** An upstream array of quotes; anything else (an HTML page, an error object) is a 502. */
export function quoteItems(body: unknown, authorKey: 'author' | 'character'): Quote[] {
  if (!Array.isArray(body)) throw unexpectedShape();
  return body
    .filter((q): q is Record<string, unknown> => isRecord(q) && typeof q.quote === 'string')
    .map((q) => ({ quote: String(q.quote).trim(), author: typeof q[authorKey] === 'string' ? q[authorKey] : null }));
}
