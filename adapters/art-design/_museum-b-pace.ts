// One shared pace for every call to the Met: its WAF answers HTML 403 after ~30 quick requests, so calls
// are spaced by at least `intervalMs`, across all concurrent requests of this process. Each caller
// reserves the next free slot before sleeping, so concurrent searches queue instead of bursting.
import { pause } from '../../engine/adapter.js';

const nextSlot = new Map<string, number>();

export async function paced(key: string, intervalMs: number, signal?: AbortSignal): Promise<void> {
  const now = Date.now();
  const slot = Math.max(now, nextSlot.get(key) ?? 0);
  nextSlot.set(key, slot + intervalMs);
  const wait = slot - now;
  if (wait <= 0) return;
  await pause(wait, signal);
}
