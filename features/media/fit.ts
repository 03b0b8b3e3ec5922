// A variant under a cap: with `maxBytes`, or `for` a messenger whose cap applies, an answer keeps of each
// kind of media (video, audio, gif) the largest that fits, and every photo that fits (a carousel's photos
// are not variants of one another). A media of unknown size never fits: the cap is a promise to the caller.
// When nothing fits, 422 media_too_large names the smallest size on offer.
import { ApiError } from '../../engine/errors.js';

/**
 * What each messenger takes of a file its bot sends by URL:
 *   telegram  20 MB: "other files" sent by URL (https://core.telegram.org/bots/api#sending-files); photos 5 MB
 *   whatsapp  16 MB: video and audio on the Cloud API (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types); images 5 MB
 * One cap per messenger, its files' (video, audio), in bytes (MB = 1024 × 1024).
 */
const MESSENGER_CAPS: Record<string, number> = {
  telegram: 20 * 1024 * 1024,
  whatsapp: 16 * 1024 * 1024,
};

type Item = Record<string, unknown>;

/** `16777216 bytes (16 MB)`: the exact figure, and one a reader takes in. */
const sized = (bytes: number) =>
  `${bytes} bytes (${bytes >= 1048576 ? `${+(bytes / 1048576).toFixed(1)} MB` : `${+(bytes / 1024).toFixed(1)} KB`})`;

/** The cap the params ask for (the smaller of the two when both are given), or undefined. */
export function capOf(params: Record<string, unknown>): number | undefined {
  const caps = [params.maxBytes, typeof params.for === 'string' ? MESSENGER_CAPS[params.for] : undefined].filter(
    (c): c is number => typeof c === 'number' && c > 0,
  );
  return caps.length ? Math.min(...caps) : undefined;
}

/** The items that fit under `cap`, best of each kind; throws media_too_large when none does. */
export function fit(list: unknown[], cap: number): unknown[] {
  const items = list.filter((m): m is Item => typeof m === 'object' && m !== null);
  const size = (m: Item) => (typeof m.bytes === 'number' ? m.bytes : undefined);
  const fitting = items.filter((m) => (size(m) ?? Infinity) <= cap);
  if (!fitting.length) {
    const known = items.map(size).filter((b): b is number => b !== undefined);
    const smallest = known.length ? Math.min(...known) : undefined;
    throw new ApiError(
      'media_too_large',
      smallest === undefined
        ? `No media of this post is known to fit in ${sized(cap)}: their sizes are not known`
        : `No media of this post fits in ${sized(cap)}; the smallest on offer is ${sized(smallest)}`,
    );
  }
  const best = new Map<unknown, Item>();
  for (const m of fitting) if (m.type !== 'image' && size(m)! > (size(best.get(m.type) ?? {}) ?? -1)) best.set(m.type, m);
  return fitting.filter((m) => m.type === 'image' || best.get(m.type) === m);
}
