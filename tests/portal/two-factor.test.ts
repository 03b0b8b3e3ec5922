// Two-factor sign-in over HTTP: an authenticator app set up and used with a clock the test sets (jest's fake
// Date) and codes computed by the test's own RFC 6238 (tests/helpers/totp.ts), never by the portal's
// library; sign-in in two steps, the half-signed-in state expiring, a code good once, one step of drift,
// wrong codes throttled like passwords, recovery codes used once, removal behind the password, the
// secret sealed at rest and never shown again, ADMIN_2FA=required, the admin's reset (logged, mailed),
// and the mails of factors added and removed (a real SMTP server on loopback).
import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { smtpServer, type Mailbox } from '../helpers/smtp.js';
import { logSink } from '../helpers/log-sink.js';
import { base32Bytes, totpAt } from '../helpers/totp.js';
import { csrfOf, signIn, submit, visitor, type Agent } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const ADMIN = 'two-factor-admin@example.com';
const T0 = Date.parse('2031-03-04T05:06:00Z'); // the start of a 30-second step
const { lines, sink } = logSink();

let box: Mailbox;
let t: TestApp;

beforeAll(async () => {
  box = await smtpServer();
  t = await testApp(
    { SMTP_URL: box.url, ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, ADMIN_2FA: 'required', LOG_LEVEL: 'info' },
    { log: pino({ level: 'info' }, sink) },
  );
});
afterAll(async () => {
  jest.useRealTimers();
  await t?.close();
  await box?.close();
});

// Only Date is faked: timers, I/O and the database's waits run as they do.
const REAL = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;
const setClock = (ms: number) => {
  jest.useFakeTimers({ doNotFake: [...REAL], now: ms });
};
afterEach(() => jest.useRealTimers());

const email = () => `tf-${crypto.randomUUID().slice(0, 8)}@example.com`;
const accounts = () => new Accounts(t.api.database.db, t.api.keys);
const newAccount = async (mail = email()) => (await accounts().create({ email: mail, name: 'Two Step', password: PW }))!;
const codeAt = (secret: Buffer, ms: number) => totpAt(secret, Math.floor(ms / 1000));

/** Sets up an authenticator app for the signed-in agent: its secret (read from the setup page) and the recovery codes shown. */
async function setUpApp(a: Agent, at: number): Promise<{ secret: Buffer; codes: string[] }> {
  const start = await submit(a, '/account/two-factor', '/account/two-factor/totp', {});
  expect(start.status).toBe(303);
  const page = await a.get('/account/two-factor/totp');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<svg');
  const shown = /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page.text)![1];
  const secret = base32Bytes(shown);
  expect(secret.length).toBeGreaterThanOrEqual(16);
  const wrong = await a
    .post('/account/two-factor/totp/confirm')
    .type('form')
    .send({ csrf: csrfOf(page.text), code: '000000' === codeAt(secret, at) ? '111111' : '000000' });
  expect(wrong.status).toBe(422);
  const done = await a
    .post('/account/two-factor/totp/confirm')
    .type('form')
    .send({ csrf: csrfOf(page.text), code: codeAt(secret, at) });
  expect(done.status).toBe(200);
  const codes = [...done.text.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)].map((m) => m[1]);
  return { secret, codes };
}

test("the test's own TOTP gives RFC 6238's test vectors (SHA-1)", () => {
  const key = Buffer.from('12345678901234567890');
  expect(totpAt(key, 59, 8)).toBe('94287082');
  expect(totpAt(key, 1111111109, 8)).toBe('07081804');
  expect(totpAt(key, 1234567890, 8)).toBe('89005924');
  expect(totpAt(key, 2000000000, 8)).toBe('69279037');
  expect(base32Bytes('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString()).toBe('12345678901234567890');
});

test('an authenticator app: set up with a code, then sign-in takes the password and a code, each code once', async () => {
  setClock(T0);
  const account = await newAccount();
  const a = visitor(t);
  expect((await signIn(a, account.email, PW)).headers.location).toBe('/dashboard');
  const { secret, codes } = await setUpApp(a, T0);
  expect(codes).toHaveLength(10);
  for (const c of codes) expect(c).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
  expect(new Set(codes).size).toBe(10);

  // Sealed at rest, never shown again.
  const row = await t.api.database.db.selectFrom('totpFactors').selectAll().where('accountId', '=', account.id).executeTakeFirstOrThrow();
  expect(row.confirmed).toBe(1);
  expect(JSON.stringify(row)).not.toContain(Buffer.from(secret).toString('base64url'));
  const shown = /id="totp-secret">([^<]+)</;
  expect((await a.get('/account/two-factor/totp')).status).toBe(303);
  expect(shown.test((await a.get('/account/two-factor')).text)).toBe(false);
  expect((await a.get('/account')).text).toContain('On: signing in asks for a second factor');
  const hashes = await t.api.database.db.selectFrom('recoveryCodes').select('hash').where('accountId', '=', account.id).execute();
  expect(hashes).toHaveLength(10);
  expect(JSON.stringify(hashes)).not.toContain(codes[0]);

  // Signing in: the password leads to the second step, not into the account.
  const b = visitor(t);
  const first = await signIn(b, account.email, PW);
  expect(first.status).toBe(303);
  expect(first.headers.location).toBe('/login/factor');
  expect((await b.get('/dashboard')).status).toBe(303);
  const step = await b.get('/login/factor');
  expect(step.text).toContain('Code from your authenticator app');

  // The code of this step was used by the setup: refused (and counted); the next step's code works once.
  setClock(T0 + 30_000);
  const replay = await b
    .post('/login/factor/totp')
    .type('form')
    .send({ csrf: csrfOf(step.text), code: codeAt(secret, T0) });
  expect(replay.status).toBe(401);
  expect(replay.text).toContain('That code is not right');
  const ok = await b
    .post('/login/factor/totp')
    .type('form')
    .send({ csrf: csrfOf(step.text), code: codeAt(secret, T0 + 30_000) });
  expect(ok.status).toBe(303);
  expect(ok.headers.location).toBe('/dashboard');
  expect((await b.get('/dashboard')).status).toBe(200);

  // Another browser, the same code again within its step: refused, a code is good once.
  const c = visitor(t);
  await signIn(c, account.email, PW);
  const again = await submit(c, '/login/factor', '/login/factor/totp', { code: codeAt(secret, T0 + 30_000) });
  expect(again.status).toBe(401);
  // One step of drift is allowed: the next step's code (the phone runs 30 s ahead); two steps are not.
  setClock(T0 + 60_000);
  expect((await submit(c, '/login/factor', '/login/factor/totp', { code: codeAt(secret, T0 + 120_000) })).status).toBe(401);
  const ahead = await submit(c, '/login/factor', '/login/factor/totp', { code: codeAt(secret, T0 + 90_000), next: '/account' });
  expect(ahead.status).toBe(303);
  expect(ahead.headers.location).toBe('/account');
});

test('the half-signed-in state lasts 5 minutes; a recovery code signs in once; wrong codes are throttled like passwords', async () => {
  setClock(T0 + 3600_000);
  const account = await newAccount();
  const a = visitor(t);
  await signIn(a, account.email, PW);
  const { secret, codes } = await setUpApp(a, T0 + 3600_000);

  const b = visitor(t);
  await signIn(b, account.email, PW);
  setClock(T0 + 3600_000 + 5 * 60_000 + 1000);
  const late = await submit(b, '/login', '/login/factor/totp', { code: codeAt(secret, T0 + 3600_000 + 5 * 60_000) });
  expect(late.status).toBe(303);
  expect(late.headers.location).toBe('/login');
  expect((await b.get('/login/factor')).headers.location).toBe('/login');

  // A recovery code, typed in capitals with spaces: signs in once.
  await signIn(b, account.email, PW);
  const typed = codes[0].toUpperCase().replace(/-/g, ' ');
  const used = await submit(b, '/login/factor', '/login/factor/recovery', { code: typed });
  expect(used.status).toBe(303);
  expect(used.headers.location).toBe('/dashboard');
  expect(lines.some((l) => l.includes('portal: recovery code used') && l.includes('"left":9'))).toBe(true);
  const c = visitor(t);
  await signIn(c, account.email, PW);
  expect((await submit(c, '/login/factor', '/login/factor/recovery', { code: codes[0] })).status).toBe(401);

  // Wrong codes count on the sign-in allowance (9 more: the recovery code above was the first): then 429.
  for (let i = 0; i < 9; i++) expect((await submit(c, '/login/factor', '/login/factor/totp', { code: '12345x' })).status).toBe(401);
  const paused = await submit(c, '/login/factor', '/login/factor/totp', { code: codeAt(secret, T0 + 3600_000 + 5 * 60_000 + 1000) });
  expect(paused.status).toBe(429);
  expect(paused.headers['retry-after']).toBeDefined();
});

test('removing the app needs the password; every change is mailed to the owner', async () => {
  setClock(T0 + 7200_000);
  const account = await newAccount();
  const a = visitor(t);
  await signIn(a, account.email, PW);
  await setUpApp(a, T0 + 7200_000);
  const added = await box.next(account.email, /sign-in factor was added/);
  expect(added.text).toContain('An authenticator app was added');

  const wrong = await submit(a, '/account/two-factor', '/account/two-factor/totp/remove', { current: 'not my password' });
  expect(wrong.status).toBe(422);
  expect(wrong.text).toContain('current password is not right');
  const removed = await submit(a, '/account/two-factor', '/account/two-factor/totp/remove', { current: PW });
  expect(removed.headers.location).toBe('/account/two-factor?done=totp-removed');
  expect((await box.next(account.email, /sign-in factor was removed/)).text).toContain('removed your authenticator app');
  // The last factor gone, its recovery codes went with it, and the password alone signs in.
  expect(await t.api.database.db.selectFrom('recoveryCodes').select('hash').where('accountId', '=', account.id).execute()).toEqual([]);
  expect((await signIn(visitor(t), account.email, PW)).headers.location).toBe('/dashboard');
});

test('ADMIN_2FA=required: an admin without a factor sets one up before /admin; an admin resets a user who lost theirs', async () => {
  setClock(T0 + 10_800_000);
  const admin = visitor(t);
  await signIn(admin, ADMIN, PW);
  const gated = await admin.get('/admin');
  expect(gated.status).toBe(303);
  expect(gated.headers.location).toBe('/account/two-factor');
  expect((await admin.get('/admin/status')).headers.location).toBe('/account/two-factor');
  expect((await admin.get('/account/two-factor')).text).toContain('requires administrators to sign in with a second factor');
  await setUpApp(admin, T0 + 10_800_000);
  expect((await admin.get('/admin')).status).toBe(200);

  // A user with an app who lost it: the admin resets their factors from the account's admin page.
  const user = await newAccount();
  const u = visitor(t);
  await signIn(u, user.email, PW);
  await setUpApp(u, T0 + 10_800_000);
  const detail = await admin.get(`/admin/accounts/${user.id}`);
  expect(detail.text).toContain('an authenticator app');
  const reset = await admin
    .post(`/admin/accounts/${user.id}/two-factor/reset`)
    .type('form')
    .send({ csrf: csrfOf(detail.text) });
  expect(reset.headers.location).toBe(`/admin/accounts/${user.id}?done=two-factor-reset`);
  const adminId = (await accounts().byEmail(ADMIN))!.id;
  const audit = lines.find((l) => l.includes('portal: admin reset two-factor sign-in'));
  expect(audit).toContain(`"by":"${adminId}"`);
  expect(audit).toContain(`"accountId":"${user.id}"`);
  expect((await box.next(user.email, /sign-in factor was removed/)).text).toContain('An administrator of the service removed');
  expect((await signIn(visitor(t), user.email, PW)).headers.location).toBe('/dashboard');
  // Not on one's own account: that is done with the password on one's own page.
  const own = await admin
    .post(`/admin/accounts/${adminId}/two-factor/reset`)
    .type('form')
    .send({ csrf: csrfOf(detail.text) });
  expect(own.status).toBe(400);
});

test('bad input is a clear 4xx: a passkey form sent without its script, a foreign answer, no challenge', async () => {
  // (Later than the 15-minute window of the client's failures above.)
  setClock(T0 + 20_000_000);
  const account = await newAccount();
  const a = visitor(t);
  await signIn(a, account.email, PW);
  const noScript = await submit(a, '/account/two-factor', '/account/two-factor/passkeys', { name: 'Laptop' });
  expect(noScript.status).toBe(400);
  expect(noScript.text).toContain('Passkeys need JavaScript');
  const csrf = csrfOf((await a.get('/account/two-factor')).text);
  const noChallenge = await a
    .post('/account/two-factor/passkeys')
    .set('X-CSRF-Token', csrf)
    .send({ name: 'Laptop', response: { id: 'x', response: {} } });
  expect(noChallenge.status).toBe(400);
  expect(noChallenge.body.error).toMatch(/too long/);
  const options = await a.post('/account/two-factor/passkeys/options').set('X-CSRF-Token', csrf).send({});
  expect(options.status).toBe(200);
  expect(options.body.rp.id).toBe('127.0.0.1');
  expect(options.body.authenticatorSelection.residentKey).toBe('required');
  const forged = await a
    .post('/account/two-factor/passkeys')
    .set('X-CSRF-Token', csrf)
    .send({
      name: 'Laptop',
      response: { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } },
    });
  expect(forged.status).toBe(400);
  expect(forged.body.error).toMatch(/could not be checked/);
  const badName = await a.post('/account/two-factor/passkeys').set('X-CSRF-Token', csrf).send({ name: 'a\nb', response: {} });
  expect(badName.status).toBe(422);

  const anon = visitor(t);
  const login = await anon.get('/login');
  const nothing = await anon.post('/login/passkey').set('X-CSRF-Token', csrfOf(login.text)).send({ response: 'no' });
  expect(nothing.status).toBe(400);
  expect((await anon.post('/login/factor/passkey/options').set('X-CSRF-Token', csrfOf(login.text)).send({})).status).toBe(401);
});
