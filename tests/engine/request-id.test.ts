// The ids the service gives calls: UUIDv7 (RFC 9562) with the time they were made in their first 48 bits,
// the version and variant in place, and random bits that differ from id to id in every random position.
import { timeOfRequestId, timeOrderedId } from '../../engine/request-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('an id is a UUIDv7 of the time it was made at, read back to the millisecond', () => {
  for (const at of [0, 1, Date.UTC(2020, 0, 1), Date.now(), 2 ** 48 - 1]) {
    const id = timeOrderedId(at);
    expect(id).toMatch(V7);
    expect(timeOfRequestId(id)).toBe(at);
  }
  expect(timeOfRequestId('caller-own-1')).toBeUndefined();
});

test('ids of one millisecond are all different, past the random pool refilled several times, and every random place takes every value', () => {
  const at = Date.now();
  const ids = Array.from({ length: 10_000 }, () => timeOrderedId(at));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(V7);
  // The places after the version: rand_a (3), the variant's (1, one of 8, 9, a, b), rand_b (3 + 12).
  const places = [15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
  for (const place of places) {
    const seen = new Set(ids.map((id) => id[place]));
    expect(seen.size).toBe(place === 19 ? 4 : 16);
  }
});
