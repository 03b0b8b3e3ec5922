// The ways an upstream fails that every upstream adapter's tests replay, with what our caller must see:
// the engine's mapping (404 → 404, 429 → 503 + Retry-After, 5xx → 502, an unreadable 200 → 502 upstream_changed).
// Upstream-specific quirks (errors inside a 200, 500 meaning "not found"…) are tested beside the adapter.
import type request from 'supertest';
import type { FakeResponse } from './fake-upstream.js';

export interface Failure {
  name: string;
  answer: FakeResponse;
  status: number;
  code: string;
}

export const UPSTREAM_FAILURES: Failure[] = [
  { name: 'upstream 404', answer: { status: 404, text: 'Not Found' }, status: 404, code: 'not_found' },
  {
    name: 'upstream 429',
    answer: { status: 429, headers: { 'retry-after': '30' }, json: { message: 'Too many requests' } },
    status: 503,
    code: 'upstream_busy',
  },
  { name: 'upstream 500', answer: { status: 500, json: { message: 'Internal Server Error' } }, status: 502, code: 'upstream_failed' },
  {
    name: 'malformed 200 body',
    answer: { status: 200, headers: { 'content-type': 'application/json' }, text: '<html>Bad gateway</html>' },
    status: 502,
    code: 'upstream_changed',
  },
];

/** The error envelope with that status and code, Retry-After on a 503, and nothing of the upstream leaked. */
export function expectFailure(res: request.Response, f: Pick<Failure, 'status' | 'code'>): void {
  expect(res.status).toBe(f.status);
  expect(res.body.success).toBe(false);
  expect(res.body.code).toBe(f.code);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error).not.toMatch(/127\.0\.0\.1|Internal Server Error|Bad gateway|Too many requests/);
  if (f.status === 503) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}
