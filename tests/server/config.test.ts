// SMTP_URL and MAIL_FROM: read into config.mail, with a boot error that names the bad value (and never
// prints the SMTP password); without SMTP_URL there is no mail at all.
import { loadConfig } from '../../server/config.js';

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

test('SMTP_URL and MAIL_FROM are read as given', () => {
  expect(loadConfig({ SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465', MAIL_FROM: 'API <api@example.com>' }).mail).toEqual({
    smtpUrl: 'smtps://user:p%40ss@mail.example.com:465',
    from: 'API <api@example.com>',
  });
  expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'api@example.com' }).mail?.from).toBe('api@example.com');
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
});

test('a bad MAIL_FROM stops the boot, naming the value', () => {
  expect(bootError({ SMTP_URL: 'smtp://h.example', MAIL_FROM: 'no-at-sign' })).toBe(
    'MAIL_FROM must be an email address, or a name and one in <>, got "no-at-sign"',
  );
  expect(bootError({ SMTP_URL: 'smtp://h.example', MAIL_FROM: 'API <api@example.com' })).toMatch(/^MAIL_FROM must be/);
  expect(bootError({ MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' })).toMatch(/^MAIL_FROM must be/);
});
