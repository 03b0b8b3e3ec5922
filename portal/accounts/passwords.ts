// Passwords (OWASP Password Storage cheat sheet): argon2id at OWASP's minimum parameters (19 MiB, 2 passes,
// 1 lane) through Node 24's own crypto.argon2 (no native add-on to build), a 16-byte random salt, stored
// as a PHC string so the parameters travel with the hash and can be raised later (needsRehash).
import crypto from 'node:crypto';

const PARAMS = { memory: 19456, passes: 2, parallelism: 1 } as const;
const TAG = 32;
const SALT = 16;
export const MIN_LENGTH = 8;
export const MAX_LENGTH = 128;

// The handful of passwords every list of breached ones starts with; the length rule catches the rest of
// the short ones.
const COMMON = new Set([
  'password',
  'password1',
  'password123',
  '12345678',
  '123456789',
  '1234567890',
  'qwertyuiop',
  'qwerty123',
  '11111111',
  '00000000',
  'iloveyou',
  'abc12345',
  'letmein1',
  'welcome1',
  'admin123',
  'changeme',
]);

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function derive(
  password: string,
  salt: Buffer,
  p: { memory: number; passes: number; parallelism: number },
  tagLength: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.argon2('argon2id', { message: password, nonce: salt, tagLength, ...p }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT);
  const tag = await derive(password, salt, PARAMS, TAG);
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${b64(salt)}$${b64(tag)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Constant-time comparison of the derived tag; false for any malformed stored hash. */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  if (!m) return false;
  const expected = Buffer.from(m[5], 'base64');
  const tag = await derive(password, Buffer.from(m[4], 'base64'), { memory: +m[1], passes: +m[2], parallelism: +m[3] }, expected.length);
  return crypto.timingSafeEqual(tag, expected);
}

/** A stored hash made with weaker parameters than today's (rehashed at the next sign-in). */
export const needsRehash = (phc: string) =>
  !phc.startsWith(`$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$`);

// A hash of a random password, verified against when the email is unknown, so a wrong email costs the
// same time as a wrong password (no account enumeration by timing).
let dummy: Promise<string> | undefined;
export async function burnVerify(password: string): Promise<false> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
  return false;
}

/** Why a new password is refused, or undefined when it is fine. */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < MIN_LENGTH) return `Use at least ${MIN_LENGTH} characters.`;
  if (password.length > MAX_LENGTH) return `Use at most ${MAX_LENGTH} characters.`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'Your password cannot be your email address.';
  if (COMMON.has(password.toLowerCase())) return 'That password is among the most common ones; choose another.';
  return undefined;
}
