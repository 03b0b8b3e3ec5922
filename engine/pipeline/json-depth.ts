// JSON bodies nested deeper than any request needs are refused before they are parsed. JSON.parse itself
// takes any depth, but what walks the value after it (validation, JSON.stringify, the MCP SDK's schemas)
// recurses, and 50,000 levels overflow the stack. A request of this API nests a few levels (an MCP tool
// call's arguments inside its message); 64 leaves room.
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Raised by refuseDeepJson: body-parser passes it on with its status, and its type names it. */
class TooDeep extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
}

/** body-parser's `verify` for JSON: throws when the raw body nests arrays or objects deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === QUOTE) i = stringEnd(buf, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new TooDeep(`Malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** The index of the quote that ends the string opened at `start` (found natively: a base64 file is one long string). */
function stringEnd(buf: Buffer, start: number): number {
  for (let i = buf.indexOf(QUOTE, start + 1); i >= 0; i = buf.indexOf(QUOTE, i + 1)) {
    let slashes = 0;
    for (let j = i - 1; buf[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return i;
  }
  return buf.length;
}
