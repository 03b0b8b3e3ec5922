// Standard Webhooks' symmetric signatures (www.standardwebhooks.com, spec/standard-webhooks.md): the
// content signed is `{webhook-id}.{webhook-timestamp}.{body}`, its HMAC-SHA256 under the secret's bytes,
// sent as `v1,<base64>`; several signatures (a rolled secret and the one before it) are space-separated.
// Secrets are 32 random bytes (the spec asks 24 at least), shown to their owner as `whsec_<base64>`.
// Own code: a dozen lines of node:crypto; the tests check it with the `standardwebhooks` package.
import crypto from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret's bytes, as base64 (how the settings keep it). */
export const newSecret = (): string => crypto.randomBytes(32).toString('base64');

/** The secret as its owner copies it into their receiver. */
export const secretText = (secret: string): string => PREFIX + secret;

/** A message id: the same for every attempt of one delivery, and never a `.` (it is part of the signed content). */
export const messageId = (): string => `msg_${crypto.randomBytes(16).toString('base64url')}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under one secret (base64, with or without whsec_). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed with each secret given (the current one first). */
export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
