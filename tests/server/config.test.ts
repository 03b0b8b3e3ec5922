// The portal's settings read from the environment (server/config.ts), their defaults, and the boot error
// that names a bad value: SIGNUP_LIMIT and FREE_PERSONAL_KEYS; SMTP_URL and MAIL_FROM, read into
// config.mail (never printing the SMTP password; without SMTP_URL there is no mail at all).
import { loadConfig } from '../../server/config.js';

test('SIGNUP_LIMIT: 10 sign-ups per client IP per minute unless set; a whole number of at least 1', () => {
  expect(loadConfig({}).signupLimit).toBe(10);
  expect(loadConfig({ SIGNUP_LIMIT: '3' }).signupLimit).toBe(3);
  expect(() => loadConfig({ SIGNUP_LIMIT: '0' })).toThrow('SIGNUP_LIMIT must be at least 1, got "0"');
  expect(() => loadConfig({ SIGNUP_LIMIT: 'ten' })).toThrow('SIGNUP_LIMIT must be a whole number, got "ten"');
});

test('ADMIN_2FA: optional unless required; anything else stops the boot', () => {
  expect(loadConfig({}).adminTwoFactor).toBe('optional');
  expect(loadConfig({ ADMIN_2FA: 'Required' }).adminTwoFactor).toBe('required');
  expect(() => loadConfig({ ADMIN_2FA: 'yes' })).toThrow('ADMIN_2FA must be required or optional, got "yes"');
});

test('FREE_PERSONAL_KEYS: off unless true (or 1); anything else stops the boot', () => {
  expect(loadConfig({}).freePersonalKeys).toBe(false);
  expect(loadConfig({ FREE_PERSONAL_KEYS: 'true' }).freePersonalKeys).toBe(true);
  expect(loadConfig({ FREE_PERSONAL_KEYS: '1' }).freePersonalKeys).toBe(true);
  expect(loadConfig({ FREE_PERSONAL_KEYS: 'false' }).freePersonalKeys).toBe(false);
  expect(() => loadConfig({ FREE_PERSONAL_KEYS: 'yes' })).toThrow('FREE_PERSONAL_KEYS must be true or false, got "yes"');
});

const bootError = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the configuration loaded');
};

test('without SMTP_URL no mail is sent (MAIL_FROM alone changes nothing)', () => {
  expect(loadConfig({}).mail).toBeUndefined();
  expect(loadConfig({ MAIL_FROM: 'ops@example.com' }).mail).toBeUndefined();
});

test('SMTP_URL is read into host, port, TLS and credentials (percent-decoded); MAIL_FROM as given', () => {
  expect(loadConfig({ SMTP_URL: 'smtps://user:p%40ss%3Aword@mail.example.com', MAIL_FROM: 'API <api@example.com>' }).mail).toEqual({
    host: 'mail.example.com',
    port: 465,
    secure: true,
    auth: { user: 'user', pass: 'p@ss:word' },
    from: 'API <api@example.com>',
  });
  expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525/', MAIL_FROM: 'api@example.com' }).mail).toEqual({
    host: '127.0.0.1',
    port: 2525,
    secure: false,
    auth: undefined,
    from: 'api@example.com',
  });
  expect(loadConfig({ SMTP_URL: 'smtp://[::1]' }).mail).toMatchObject({ host: '::1', port: 587, secure: false });
});

test("MAIL_FROM defaults to the service's name at no-reply@ PUBLIC_URL's host", () => {
  const mail = loadConfig({ SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://api.example.org/', SERVICE_NAME: 'My "API"' }).mail;
  expect(mail?.from).toBe('"My API" <no-reply@api.example.org>');
});

test('a bad SMTP_URL stops the boot, naming scheme and host but never the password', () => {
  const msg = bootError({ SMTP_URL: 'http://user:secret@mail.example.com' });
  expect(msg).toBe('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…, got http://mail.example.com');
  expect(msg).not.toContain('secret');
  expect(bootError({ SMTP_URL: 'mail.example.com:25' })).toMatch(/^SMTP_URL must be smtp:\/\//);
  expect(bootError({ SMTP_URL: 'not a url' })).toBe(
    'SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…, got a value that is not a URL',
  );
  expect(bootError({ SMTP_URL: 'smtp://mail.example.com:0' })).toBe('SMTP_URL has a bad port: smtp://mail.example.com:0');
  expect(bootError({ SMTP_URL: 'smtp://mail.example.com:99999' })).toMatch(/^SMTP_URL must be/);
  expect(bootError({ SMTP_URL: 'smtp://u:secret@mail.example.com/?pool=true' })).toBe(
    'SMTP_URL takes no path or ?options, got smtp://mail.example.com?…',
  );
  const badEncoding = bootError({ SMTP_URL: 'smtp://u:se%zzcret@mail.example.com' });
  expect(badEncoding).toMatch(/^SMTP_URL's user or password is not percent-encoded right/);
  expect(badEncoding).not.toContain('cret');
});

test('a bad MAIL_FROM stops the boot, naming the value', () => {
  expect(bootError({ SMTP_URL: 'smtp://h.example', MAIL_FROM: 'no-at-sign' })).toBe(
    'MAIL_FROM must be an email address, or a name and one in <>, got "no-at-sign"',
  );
  expect(bootError({ SMTP_URL: 'smtp://h.example', MAIL_FROM: 'API <api@example.com' })).toMatch(/^MAIL_FROM must be/);
  expect(bootError({ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' })).toMatch(/^MAIL_FROM must be/);
});

test('MAX_CONNECTIONS_PER_IP: 64 unless set, none behind a trusted proxy unless set', () => {
  expect(loadConfig({}).connectionsPerAddress).toBe(64);
  expect(loadConfig({ TRUST_PROXY: 'true' }).connectionsPerAddress).toBe(0);
  expect(loadConfig({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_IP: '500' }).connectionsPerAddress).toBe(500);
  expect(loadConfig({ MAX_CONNECTIONS_PER_IP: '0' }).connectionsPerAddress).toBe(0);
  expect(() => loadConfig({ MAX_CONNECTIONS_PER_IP: 'many' })).toThrow('MAX_CONNECTIONS_PER_IP must be a whole number');
});

test('BODY_IDLE_TIMEOUT: 30 s unless set, between 1 s and 30 s', () => {
  expect(loadConfig({}).bodyIdleTimeoutMs).toBe(30_000);
  expect(loadConfig({ BODY_IDLE_TIMEOUT: '10s' }).bodyIdleTimeoutMs).toBe(10_000);
  expect(() => loadConfig({ BODY_IDLE_TIMEOUT: '2m' })).toThrow('BODY_IDLE_TIMEOUT must be between 1s and 30s, got "2m"');
  expect(() => loadConfig({ BODY_IDLE_TIMEOUT: 'soon' })).toThrow('BODY_IDLE_TIMEOUT must be a duration');
});
