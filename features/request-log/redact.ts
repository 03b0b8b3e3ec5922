// What the request log keeps of a call's parameters, uploads and error: never a credential, never more than
// 8 KB each. A value is redacted by its name (the API key, `upstream_key`, tokens, passwords, anything a
// catalog parameter marks `secret:`) and wherever the caller's own key appears inside another value.
import { isIPv4, isIPv6 } from 'node:net';
import type { UploadedFile } from '../../engine/types.js';
import { remembered, rememberedLast } from '../../engine/remembered.js';

/** An upload as the log keeps it: never its bytes. */
export interface KeptUpload {
  field: string;
  name: string;
  type: string;
  size: number;
}

/** Each of the parameters, the uploads and the error is cut to this many bytes of JSON. */
const CAP_BYTES = 8 * 1024;
export const REDACTED = '[redacted]';
/** The key under which kept parameters list the names whose values were cut to fit (never replayed). */
export const TRUNCATED = '[truncated]';

/** Names that hold credentials on any endpoint (compared in lower case, `-` read as `_`). */
const SECRET_NAME = /(^|_)(apikey|key|token|secret|passwd|pass|pwd|auth|authorization|credentials?|session|cookie)$|password|secret/;

/** Names judged once each (callers send the same few names again and again). */
const secretByName = remembered((name) => SECRET_NAME.test(name.toLowerCase().replace(/-/g, '_')));

/** secretByName() at each place among a call's parameters, its last answer remembered (the next call sends the same names, made anew). */
const PLACES = 16;
const byPlace = Array.from({ length: PLACES }, () => rememberedLast(secretByName));

/** `place`: the name's among the call's parameters, when known. */
const isSecretName = (name: string, secretParams: ReadonlySet<string>, place = PLACES): boolean =>
  (secretParams.size !== 0 && secretParams.has(name)) || (place < PLACES ? byPlace[place](name) : secretByName(name));

/** Whether a text's UTF-8 form fits `cap` bytes (a character is at most 3 bytes of UTF-8 per UTF-16 unit). */
const fits = (text: string, cap: number) => text.length * 3 <= cap || Buffer.byteLength(text) <= cap;

/** `presented`: the keys the caller sent, redacted wherever they appear inside another value. */
function scrub(value: string, presented: readonly string[]): string {
  let out = value;
  // A value shorter than a key cannot hold it (most values): answered without a search.
  for (const k of presented) if (k.length >= 8 && out.length >= k.length && out.includes(k)) out = out.split(k).join(REDACTED);
  return out;
}

/** A value as it is kept: nested objects and lists are scrubbed in depth, names included. */
function clean(value: unknown, secretParams: ReadonlySet<string>, presented: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return scrub(value, presented);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => clean(v, secretParams, presented, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] = isSecretName(k, secretParams) ? REDACTED : clean(v, secretParams, presented, depth + 1);
  return out;
}

/**
 * What clean() makes of parameters whose values are all texts (a query string's, a form's: nearly every
 * call's), made without its recursion: their names and kept values in turn into `pairs`, an empty list
 * (emptying a list kept from call to call cost more than a new one). Answers their UTF-16 units, or -1 when
 * a value is not a text.
 */
function textPairs(raw: Record<string, unknown>, secretParams: ReadonlySet<string>, presented: readonly string[], pairs: string[]): number {
  let units = 0;
  let i = 0;
  for (const name in raw) {
    const v = raw[name];
    if (typeof v !== 'string') return -1;
    const kept = isSecretName(name, secretParams, i++) ? REDACTED : scrub(v, presented);
    pairs.push(name, kept);
    units += name.length + kept.length + 1;
  }
  return units;
}

/**
 * Parameters whose values are all texts and whose JSON is surely within the cap, kept as their names and
 * values in turn in `pairs`, an empty list (no object made: the request log copies them as they are); false
 * for any other, which keptParams() keeps.
 */
export function keptTexts(
  raw: Record<string, unknown> | undefined,
  secretParams: ReadonlySet<string>,
  presented: readonly string[],
  pairs: string[],
): boolean {
  if (raw === undefined) return false;
  const units = textPairs(raw, secretParams, presented, pairs);
  // A unit is at most 6 bytes of JSON (`\u001f`), a pair's quotes, colon and comma 6 more.
  return units >= 0 && units * 6 + 2 <= CAP_BYTES;
}

/** keptTexts() as an object, when its JSON fits the cap; undefined otherwise. */
function flatParams(
  raw: Record<string, unknown>,
  secretParams: ReadonlySet<string>,
  presented: readonly string[],
): Record<string, unknown> | undefined {
  const pairs: string[] = [];
  const units = textPairs(raw, secretParams, presented, pairs);
  if (units < 0) return undefined;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = pairs[i + 1];
  return units * 6 + 2 <= CAP_BYTES || fits(JSON.stringify(out), CAP_BYTES) ? out : undefined;
}

/**
 * The parameters redacted, whose JSON is at most CAP_BYTES: over it, the longest values are cut first (their
 * names listed under TRUNCATED, so that Replay in Try it leaves them out), then fields beyond the cap dropped.
 */
export function keptParams(
  raw: Record<string, unknown> | undefined,
  secretParams: ReadonlySet<string>,
  presented: readonly string[],
): Record<string, unknown> | null {
  if (raw === undefined) return null;
  const names = Object.keys(raw);
  if (names.length === 0) return null;
  const flat = flatParams(raw, secretParams, presented);
  if (flat !== undefined) return flat;
  const params = clean(raw, secretParams, presented) as Record<string, unknown>;
  if (fits(JSON.stringify(params), CAP_BYTES)) return params;
  // Each value gets an equal share of the cap; what is longer is cut to it.
  const share = Math.max(32, Math.floor((CAP_BYTES - 512) / names.length / 2));
  const cut: string[] = [];
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (text.length > share) {
      kept[k] = `${text.slice(0, share)}…`;
      cut.push(k);
    } else kept[k] = v;
  }
  kept[TRUNCATED] = cut;
  while (Buffer.byteLength(JSON.stringify(kept)) > CAP_BYTES && Object.keys(kept).length > 1) {
    const last = Object.keys(kept)
      .filter((k) => k !== TRUNCATED)
      .pop()!;
    delete kept[last];
    cut.push(last);
  }
  return kept;
}

/** The uploads as name, type and size only (their bytes are never kept), their JSON at most CAP_BYTES. */
export function keptUploads(files: Record<string, UploadedFile> | undefined): KeptUpload[] | null {
  if (files === undefined) return null;
  // Nearly every call sends none (a shared empty object): answered without making a list.
  let any = false;
  for (const _ in files) {
    any = true;
    break;
  }
  if (!any) return null;
  const list = Object.values(files);
  if (list.length === 0) return null;
  const items = list.map((f) => ({ field: f.field, name: f.originalName.slice(0, 256), type: f.claimedType.slice(0, 128), size: f.size }));
  while (!fits(JSON.stringify(items), CAP_BYTES) && items.length > 1) items.pop();
  return items;
}

/** A text cut to CAP_BYTES (an error's message), its secrets scrubbed. */
export function keptText(text: string | undefined, presented: readonly string[]): string | null {
  if (!text) return null;
  const t = scrub(text, presented);
  if (fits(t, CAP_BYTES)) return t;
  return `${Buffer.from(t)
    .subarray(0, CAP_BYTES - 3)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}…`;
}

/** The client address as kept: `truncated` keeps an IPv4 address's /24 and an IPv6 address's /48. */
export function keptAddress(ip: string | undefined, mode: 'truncated' | 'full' | 'none'): string | null {
  if (!ip || mode === 'none') return null;
  if (mode === 'full') return ip;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0`;
  if (isIPv6(ip)) {
    const [head] = ip.split('::');
    const groups = head.split(':').filter(Boolean);
    return `${[...groups.slice(0, 3), ...Array<string>(Math.max(0, 3 - groups.length)).fill('0')].join(':')}::`;
  }
  return null;
}
