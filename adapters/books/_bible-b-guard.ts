// Protects this server's standing with bible-api.com, which bans an IP for an hour (a 403 on every
// call) after more than 10 404s in 30 s, and allows 15 requests per 30 s. One guard per base URL,
// shared by every request of the process:
//   - a limiter: at most 15 calls per 30 s; beyond that, 503 with Retry-After instead of calling;
//   - a breaker: 3 upstream 404s within 30 s pause forwarding for 30 s; a 403 pauses it for an hour.
import { upstreamBusy } from '../../engine/adapter.js';

const WINDOW_MS = 30_000;
const MAX_CALLS = 15;
const MAX_NOT_FOUND = 3;
const PAUSE_MS = 30_000;
const BAN_MS = 3600_000;

interface State {
  calls: number[];
  notFounds: number[];
  pausedUntil: number;
}

const states = new Map<string, State>();

const recent = (times: number[], now: number) => times.filter((t) => now - t < WINDOW_MS);
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function bibleGuard(key: string) {
  const s = states.get(key) ?? { calls: [], notFounds: [], pausedUntil: 0 };
  states.set(key, s);
  return {
    /** Call before every upstream request: throws 503 while paused or over the allowance. */
    admit(): void {
      const now = Date.now();
      if (now < s.pausedUntil) {
        throw upstreamBusy('Upstream bible-api is paused after repeated errors; try again later', seconds(s.pausedUntil - now));
      }
      s.calls = recent(s.calls, now);
      if (s.calls.length >= MAX_CALLS) {
        throw upstreamBusy('Upstream bible-api allowance is used up; try again shortly', seconds(s.calls[0] + WINDOW_MS - now));
      }
      s.calls.push(now);
    },
    notFound(): void {
      const now = Date.now();
      s.notFounds = [...recent(s.notFounds, now), now];
      if (s.notFounds.length >= MAX_NOT_FOUND) {
        s.pausedUntil = Math.max(s.pausedUntil, now + PAUSE_MS);
        s.notFounds = [];
      }
    },
    banned(): void {
      s.pausedUntil = Date.now() + BAN_MS;
    },
    retryAfterSeconds: () => seconds(s.pausedUntil - Date.now()),
  };
}
