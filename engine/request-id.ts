// The ids of calls as callers see them (X-Request-Id, metadata.requestId): the caller's own when sane,
// otherwise one the service makes, a UUIDv7 (RFC 9562) whose first 48 bits are the time it was made, so the
// request log finds a call by its id's time.
import crypto from 'node:crypto';

/** What a caller's own X-Request-Id may be. */
export const CALLERS_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

// The time's part of the ids of one millisecond, written once for all of them.
let lastMs = -1;
let timePart = '';

/** A new UUIDv7 made at `now` (epoch ms): the time, the version, and random bits from a v4 UUID. */
export function timeOrderedId(now: number): string {
  if (now !== lastMs) {
    const t = now.toString(16).padStart(12, '0');
    timePart = `${t.slice(0, 8)}-${t.slice(8)}-7`;
    lastMs = now;
  }
  return timePart + crypto.randomUUID().slice(15);
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The epoch ms a UUIDv7 was made at; undefined for any other id. */
export function timeOfRequestId(id: string): number | undefined {
  return V7.test(id) ? parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined;
}
