// What both blob backends (features/hosting/disk.ts, features/hosting/s3.ts) share: ids, kinds, public URLs, the
// metadata of a new blob and when it has expired.
import crypto from 'node:crypto';
import type { HostedKind, HostedMeta, NewBlob } from './types.js';

/** The first path segment of each kind's public URL (features/hosting/routes.ts serves them). */
const KIND_PREFIX: Record<HostedKind, string> = { paste: 'p', image: 'i', file: 'f', media: 'media' };
const KIND_OF_PREFIX: Record<string, string> = Object.fromEntries(Object.entries(KIND_PREFIX).map(([k, p]) => [p, k]));

/** `p` and `paste` name the same kind (earlier builds let adapters use either; stored-meta.ts still reads both). */
export function canonicalKind(kind: string): string {
  return KIND_OF_PREFIX[kind] ?? kind;
}

export const BLOB_ID = /^[A-Za-z0-9]{6,32}$/;
const ID_LENGTH = 8;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 8 characters of [A-Za-z0-9]: about 47 bits, so ids cannot be enumerated (private pastes rely on it). */
export function newId(): string {
  let id = '';
  while (id.length < ID_LENGTH) {
    for (const b of crypto.randomBytes(ID_LENGTH * 2)) {
      if (b < 248 && id.length < ID_LENGTH) id += ALPHABET[b % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return id;
}

/** The metadata of a blob stored now: its kind's fields as the adapter gave them, and the base. */
export function newMeta(id: string, size: number, input: NewBlob, now = Date.now()): HostedMeta {
  // The body's fields stay out: what is stored beside the bytes is exactly a HostedMeta.
  const { bytes, fromPath, contentType, ttlSeconds, ...fields } = input;
  return {
    ...fields,
    id,
    contentType,
    size,
    createdAt: new Date(now).toISOString(),
    expiresAt: ttlSeconds && ttlSeconds > 0 ? new Date(now + ttlSeconds * 1000).toISOString() : null,
  };
}

export const isExpired = (m: HostedMeta, now = Date.now()) => m.expiresAt !== null && !(Date.parse(m.expiresAt) > now);

/** Absolute URL at which the service serves a blob. */
export function blobUrl(publicUrl: string, meta: HostedMeta, suffix = ''): string {
  return `${publicUrl}/${KIND_PREFIX[meta.kind]}/${meta.id}${suffix}`;
}
