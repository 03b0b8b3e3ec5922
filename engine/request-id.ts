// The ids of calls as callers see them (X-Request-Id, metadata.requestId): the caller's own when sane,
// otherwise one the service makes, a UUIDv7 (RFC 9562) whose first 48 bits are the time it was made, so the
// request log finds a call by its id's time.
import crypto from 'node:crypto';

/** What a caller's own X-Request-Id may be. */
export const CALLERS_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

// The time's part of the ids of one millisecond, written once for all of them.
let lastMs = -1;
let timePart = '';

// Random bytes drawn 2,048 ids at a time and written as hex from a table, as node:crypto's randomUUID()
// does for its own ids: one id's 74 random bits cost no call into the crypto library.
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const ID_BYTES = 10;
const pool = Buffer.alloc(ID_BYTES * 2048);
let used = pool.length;

/** A new UUIDv7 made at `now` (epoch ms): the time, the version, 12 + 62 random bits and the variant. */
export function timeOrderedId(now: number): string {
  if (now !== lastMs) {
    const t = now.toString(16).padStart(12, '0');
    timePart = `${t.slice(0, 8)}-${t.slice(8)}-7`;
    lastMs = now;
  }
  if (used === pool.length) {
    crypto.randomFillSync(pool);
    used = 0;
  }
  const b = pool;
  const i = used;
  used += ID_BYTES;
  // rand_a: a nibble and a byte; the variant's two bits (10) over the next byte; then rand_b's last 48 bits.
  return (
    timePart +
    HEX[b[i] & 0x0f][1] +
    HEX[b[i + 1]] +
    '-' +
    HEX[(b[i + 2] & 0x3f) | 0x80] +
    HEX[b[i + 3]] +
    '-' +
    HEX[b[i + 4]] +
    HEX[b[i + 5]] +
    HEX[b[i + 6]] +
    HEX[b[i + 7]] +
    HEX[b[i + 8]] +
    HEX[b[i + 9]]
  );
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The epoch ms a UUIDv7 was made at; undefined for any other id. */
export function timeOfRequestId(id: string): number | undefined {
  return V7.test(id) ? parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined;
}
