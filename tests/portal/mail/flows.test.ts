// Email over a real SMTP server on loopback (tests/helpers/smtp.ts), messages read back with mailparser:
// sign-up confirms the address and answers a new and a taken address alike; forgot password and its
// one-hour, single-use link that ends every session; the admin's reset link when the service sends no mail;
// the change of address, confirmed at the new one with a notice to the old; the key-created notice; a request
// for a higher plan mailed to every active admin and raised on the operator alert webhook; the
// quota alerts, once per window and account however many instances hear them, off when the user says so;
// a send that fails is logged, never a 500; and links and alerts across two instances on Redis.
import crypto from 'node:crypto';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import { onTwoInstances, testApp, type TestApp } from '../../helpers/app.js';
import { csrfOf, sessionCookie, signIn, signUp, submit, visitor, type Agent } from '../../helpers/portal.js';
import { smtpServer, linkIn, htmlOf, type Mailbox } from '../../helpers/smtp.js';
import { logSink } from '../../helpers/log-sink.js';
import { webhookReceiver } from '../../helpers/webhook-receiver.js';
import { Accounts } from '../../../portal/accounts/accounts.js';
import { Invites } from '../../../portal/auth/invites.js';

const PW = 'correct horse battery';
const FROM = 'Portal <portal@example.com>';
const ADMIN = 'root@example.com';

let box: Mailbox;
let t: TestApp;
const accounts = () => new Accounts(t.api.database.db, t.api.keys);

beforeAll(async () => {
  box = await smtpServer();
  t = await testApp({ SMTP_URL: box.url, MAIL_FROM: FROM, ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
});

afterAll(async () => {
  await t?.close();
  await box?.close();
});

const email = (who = 'user') => `${who}-${crypto.randomUUID().slice(0, 8)}@example.com`;
const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;
/** A page's markup without what differs per visitor (the CSRF token). */
const sameness = (page: string) => page.replace(/name="csrf" value="[^"]*"/g, 'name="csrf" value=""');

/** Posts the form of the page at `path` (a mailed link) with its hidden fields and `fields`. */
async function follow(a: Agent, path: string, action: string, fields: Record<string, string> = {}) {
  const page = await a.get(path);
  expect(page.status).toBe(200);
  return a
    .post(action)
    .type('form')
    .send({ csrf: csrfOf(page.text), token: tokenOf(path), ...fields });
}

/** Signs up and confirms the address: the returned agent is signed in. */
async function confirmedAccount(mail: string, password = PW): Promise<Agent> {
  const a = visitor(t);
  expect((await signUp(a, mail, password)).headers.location).toBe('/signup/sent');
  const link = linkIn(await box.next(mail, /Confirm your email/), '/signup/confirm');
  const done = await follow(a, link, '/signup/confirm', { password });
  expect(done.status).toBe(303);
  expect(done.headers.location).toBe('/dashboard');
  return a;
}

test('variants of one address are refused, not new accounts: one mailbox gets one confirmation, without the name typed', async () => {
  const victim = email('victim');
  const variants = [
    `${victim},`,
    `${victim};`,
    `${victim}>`,
    `x<${victim}>`,
    `(vv)${victim}`,
    `Visit https://evil.example/verify now <${victim}>`,
  ];
  for (const v of variants) {
    const r = await signUp(visitor(t), v, PW, 'Visit https://evil.example/verify now');
    expect(r.status).toBe(422);
    expect(r.text).toContain('Enter an email address like name@example.com.');
  }
  expect(await accounts().byEmail(victim)).toBeUndefined();
  expect((await signUp(visitor(t), victim.toUpperCase(), PW, 'Visit https://evil.example/verify now')).status).toBe(303);
  const mail = await box.next(victim, /Confirm your email/);
  expect(mail.text).not.toContain('evil.example');
  expect(typeof mail.html === 'string' && mail.html.includes('evil.example')).toBe(false);
  // A second sign-up of the same mailbox in another case is the taken address: a notice, no new account.
  expect((await signUp(visitor(t), victim, PW, 'Again')).status).toBe(303);
  await box.next(victim, /tried to sign up/);
  await new Promise((r) => setTimeout(r, 300));
  expect(box.waiting(victim)).toHaveLength(0);
});

test('sign-up answers a new and a taken address alike; the new one gets a link, the owner of the taken one a notice', async () => {
  const taken = email('owner');
  await confirmedAccount(taken);
  const fresh = email('new');

  const a = visitor(t);
  const b = visitor(t);
  const forNew = await signUp(a, fresh, PW, 'Mallory');
  const forTaken = await signUp(b, taken, 'another passphrase', 'Mallory');
  for (const r of [forNew, forTaken]) {
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/signup/sent');
    expect(r.headers['set-cookie']).toBeUndefined(); // nobody is signed in
  }
  expect(Object.keys(forNew.headers).sort()).toEqual(Object.keys(forTaken.headers).sort());
  expect(forNew.text).toBe(forTaken.text);
  const [pageNew, pageTaken] = [await a.get('/signup/sent'), await b.get('/signup/sent')];
  expect(pageNew.status).toBe(200);
  expect(pageNew.text).toContain('Check your inbox');
  expect(sameness(pageNew.text)).toBe(sameness(pageTaken.text));

  const confirm = await box.next(fresh, /Confirm your email/);
  expect(confirm.from?.value).toEqual([{ name: 'Portal', address: 'portal@example.com' }]);
  expect(confirm.text).toMatch(/^Hello,$/m); // not the name typed: the address is not known to be theirs yet
  expect(htmlOf(confirm)).toContain(`href="${t.api.config.publicUrl}${linkIn(confirm, '/signup/confirm').replace(/&/g, '&amp;')}"`);
  const notice = await box.next(taken, /tried to sign up/);
  expect(notice.text).toContain('No new account was made');
  expect(notice.text).toContain(`${t.api.config.publicUrl}/login/forgot`);
  expect(htmlOf(notice)).toContain('No new account was made');
  expect(notice.text).not.toContain('Mallory'); // the owner's own name, not the sign-up's
  expect((await accounts().byEmail(taken))!.name).toBe('Test User');

  // Nor does sign-in tell them apart: the password chosen at sign-up is refused for both, in one page.
  const inNew = await signIn(visitor(t), fresh, PW);
  const inTaken = await signIn(visitor(t), taken, 'another passphrase');
  expect(inNew.status).toBe(401);
  expect(inTaken.status).toBe(401);
  expect(sameness(inNew.text).replace(fresh, 'X')).toBe(sameness(inTaken.text).replace(taken, 'X'));
  expect(inNew.text).toContain('Wrong email or password');
  expect(inNew.text).toContain('Use the link we emailed you');
  // …but the unconfirmed account's owner is mailed the link again.
  expect(linkIn(await box.next(fresh, /Confirm your email/), '/signup/confirm')).toMatch(/token=/);
});

test('the confirmation link: its page confirms nothing, the sign-up password does, once; then sign-in works', async () => {
  const mail = email();
  const a = visitor(t);
  await signUp(a, mail, PW);
  const account = (await accounts().byEmail(mail))!;
  expect(account.unverified).toBe(true);
  const link = linkIn(await box.next(mail, /Confirm your email/), '/signup/confirm');

  const page = await visitor(t).get(link); // a mail scanner opening the link
  expect(page.status).toBe(200);
  expect(page.headers['referrer-policy']).toBe('no-referrer');
  expect(page.text).toContain(mail);
  expect((await accounts().get(account.id))!.unverified).toBe(true);

  const wrong = await follow(visitor(t), link, '/signup/confirm', { password: 'not the password' });
  expect(wrong.status).toBe(401);
  expect((await accounts().get(account.id))!.unverified).toBe(true);

  const right = await follow(a, link, '/signup/confirm', { password: PW });
  expect(right.status).toBe(303);
  expect(right.headers.location).toBe('/dashboard');
  expect(sessionCookie(right)).toBeDefined();
  expect((await a.get('/account')).status).toBe(200);
  expect((await accounts().get(account.id))!.unverified).toBeUndefined();

  expect((await visitor(t).get(link)).status).toBe(410);
  expect((await signIn(visitor(t), mail, PW)).status).toBe(303);
  expect((await visitor(t).get('/signup/confirm?token=made-up')).status).toBe(410);
});

test('SIGNUP=approval: the confirmed account still waits for an admin; an invite is used up by a taken address too', async () => {
  const p = await testApp({ SMTP_URL: box.url, SIGNUP: 'approval' });
  try {
    const mail = email('waiting');
    await signUp(visitor(p), mail, PW);
    const link = linkIn(await box.next(mail, /Confirm your email/), '/signup/confirm');
    const a = visitor(p);
    const page = await a.get(link);
    const done = await a
      .post('/signup/confirm')
      .type('form')
      .send({ csrf: csrfOf(page.text), token: tokenOf(link), password: PW });
    expect(done.headers.location).toBe('/signup/approval');
    expect(sessionCookie(done)).toBeUndefined();
    expect((await a.get('/signup/approval')).text).toContain('waits for an administrator');
    expect((await signIn(visitor(p), mail, PW)).status).toBe(403);

    // An invite tried with an address that has an account is used up as with a new one: trying it again
    // would otherwise tell the two apart.
    const { token } = await new Invites(p.api.database.db).create({ days: 1, createdBy: 'test' });
    const up = await signUp(visitor(p), mail, 'whatever passphrase', 'X', token);
    expect(up.headers.location).toBe('/signup/sent');
    expect((await visitor(p).get(`/signup?invite=${token}`)).status).toBe(410);
    await box.next(mail, /tried to sign up/);
  } finally {
    await p.close();
  }
});

test('send the link again: one answer for every address, a link for an unconfirmed account only', async () => {
  const waiting = email();
  await signUp(visitor(t), waiting, PW);
  await box.next(waiting, /Confirm your email/);
  const confirmed = email();
  await confirmedAccount(confirmed);
  const unknown = email();

  const answers = [];
  for (const address of [waiting, confirmed, unknown]) {
    const r = await submit(visitor(t), '/signup/sent', '/signup/resend', { email: address });
    expect(r.status).toBe(303);
    answers.push(r.headers.location);
  }
  expect(new Set(answers)).toEqual(new Set(['/signup/sent?again=1']));
  const again = await box.next(waiting, /Confirm your email/);
  expect((await follow(visitor(t), linkIn(again, '/signup/confirm'), '/signup/confirm', { password: PW })).status).toBe(303);
  await new Promise((r) => setTimeout(r, 200));
  expect(box.waiting(confirmed)).toHaveLength(0);
  expect(box.waiting(unknown)).toHaveLength(0);
});

test('link mails are throttled per address (5 an hour, sign-up included), requests per client (20 an hour), alike for any address', async () => {
  const p = await testApp({ SMTP_URL: box.url });
  try {
    const mail = email('flood');
    await signUp(visitor(p), mail, PW);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await submit(visitor(p), '/signup/sent', '/signup/resend', { email: mail })).status);
    expect(statuses).toEqual([303, 303, 303, 303, 429]);
    // A reset asked for that address is answered as always (its owner is never refused), but no mail goes.
    const quiet = await submit(visitor(p), '/login/forgot', '/login/forgot', { email: mail });
    expect(quiet.status).toBe(303);
    expect(quiet.headers.location).toBe('/login/forgot?sent=1');
    await new Promise((r) => setTimeout(r, 300));
    expect(box.waiting(mail).length).toBe(5); // the sign-up's link and four more

    // Per client: 20 requests an hour whatever the addresses (known or not).
    const spread: number[] = [];
    for (let i = 0; i < 15; i++) spread.push((await submit(visitor(p), '/login/forgot', '/login/forgot', { email: email('any') })).status);
    expect(spread.filter((s) => s === 429)).toHaveLength(1);
    expect(spread.at(-1)).toBe(429);
  } finally {
    await p.close();
  }
});

test('forgot password: one answer for any address; the link works once, for an hour, ends every session', async () => {
  const mail = email();
  const a = await confirmedAccount(mail);
  const other = visitor(t);
  expect((await signIn(other, mail, PW)).status).toBe(303);

  const login = await visitor(t).get('/login');
  expect(login.text).toContain('href="/login/forgot"');
  const known = await submit(visitor(t), '/login/forgot', '/login/forgot', { email: mail.toUpperCase() });
  const unknown = await submit(visitor(t), '/login/forgot', '/login/forgot', { email: email('nobody') });
  expect(known.status).toBe(303);
  expect(known.headers.location).toBe('/login/forgot?sent=1');
  expect(unknown.headers.location).toBe(known.headers.location);
  expect(known.text).toBe(unknown.text);
  const sent = await visitor(t).get('/login/forgot?sent=1');
  expect(sent.text).toContain('If an account has this address');

  const message = await box.next(mail, /Reset your/);
  expect(message.text).toContain('60 minutes');
  const link = linkIn(message, '/login/reset');
  expect(htmlOf(message)).toContain('Choose a new password');
  expect(htmlOf(message)).toContain(`${t.api.config.publicUrl}${link}`);

  const r = visitor(t);
  const page = await r.get(link);
  expect(page.status).toBe(200);
  expect(page.headers['referrer-policy']).toBe('no-referrer');
  expect((await follow(r, link, '/login/reset', { password: 'short' })).status).toBe(422);
  const done = await follow(r, link, '/login/reset', { password: 'a brand new passphrase' });
  expect(done.status).toBe(303);
  expect(done.headers.location).toBe('/login?done=reset');
  expect(sessionCookie(done)).toBeUndefined(); // not signed in: the user signs in again
  expect((await r.get('/login?done=reset')).text).toContain('every device was signed out');

  for (const ended of [a, other]) expect((await ended.get('/account')).status).toBe(303);
  expect((await r.get(link)).status).toBe(410);
  expect((await follow(visitor(t), '/login/forgot', '/login/reset', { token: tokenOf(link), password: 'third passphrase' })).status).toBe(
    410,
  );
  expect((await signIn(visitor(t), mail, PW)).status).toBe(401);
  expect((await signIn(visitor(t), mail, 'a brand new passphrase')).status).toBe(303);
});

test('a reset link dies after an hour, and with any password change before it is used', async () => {
  const mail = email();
  const a = await confirmedAccount(mail);
  await submit(visitor(t), '/login/forgot', '/login/forgot', { email: mail });
  const first = linkIn(await box.next(mail, /Reset your/), '/login/reset');
  const now = Date.now();
  const later = jest.spyOn(Date, 'now').mockReturnValue(now + 61 * 60_000);
  try {
    expect((await visitor(t).get(first)).status).toBe(410);
  } finally {
    later.mockRestore();
  }
  expect((await visitor(t).get(first)).status).toBe(200);
  expect((await submit(a, '/account', '/account/password', { current: PW, password: 'changed meanwhile' })).status).toBe(303);
  expect((await visitor(t).get(first)).status).toBe(410);
});

test('a reset by mail confirms an unconfirmed address (the link went there)', async () => {
  const mail = email();
  await signUp(visitor(t), mail, PW);
  await box.next(mail, /Confirm your email/);
  await submit(visitor(t), '/login/forgot', '/login/forgot', { email: mail });
  const link = linkIn(await box.next(mail, /Reset your/), '/login/reset');
  expect((await follow(visitor(t), link, '/login/reset', { password: 'my own passphrase' })).status).toBe(303);
  expect((await accounts().byEmail(mail))!.unverified).toBeUndefined();
  expect((await signIn(visitor(t), mail, 'my own passphrase')).status).toBe(303);
});

test('a reset link works only while the account keeps the address it was mailed to', async () => {
  const old = email('was');
  const a = await confirmedAccount(old);
  await submit(visitor(t), '/login/forgot', '/login/forgot', { email: old });
  const reset = linkIn(await box.next(old, /Reset your/), '/login/reset');
  expect((await visitor(t).get(reset)).status).toBe(200);
  const fresh = email('now');
  expect((await submit(a, '/account', '/account/email', { email: fresh, current: PW })).status).toBe(303);
  const confirm = linkIn(await box.next(fresh, /Confirm your new email/), '/account/email/confirm');
  expect((await follow(a, confirm, '/account/email/confirm')).status).toBe(303);
  expect((await visitor(t).get(reset)).status).toBe(410);
  expect((await follow(visitor(t), '/login/forgot', '/login/reset', { token: tokenOf(reset), password: 'taken over now' })).status).toBe(
    410,
  );
  expect((await signIn(visitor(t), fresh, PW)).status).toBe(303);
});

test('email change: a link to the new address, a notice to the old; the change only once the link is used', async () => {
  const old = email('old');
  const a = await confirmedAccount(old);
  const id = (await accounts().byEmail(old))!.id;
  const account = await a.get('/account');
  expect(account.text).toContain('Change email address');
  expect(account.text).toContain('Email me when my allowance reaches 80% and 100%');

  const fresh = email('fresh');
  const wrong = await submit(a, '/account', '/account/email', { email: fresh, current: 'not it' });
  expect(wrong.status).toBe(422);
  expect(wrong.text).toContain('current password is not right');
  expect((await submit(a, '/account', '/account/email', { email: 'nonsense', current: PW })).status).toBe(422);
  const asked = await submit(a, '/account', '/account/email', { email: fresh, current: PW });
  expect(asked.status).toBe(303);
  expect(asked.headers.location).toBe('/account?done=email-sent');
  expect((await accounts().get(id))!.email).toBe(old);

  const notice = await box.next(old, /change of your .* email address/);
  expect(notice.text).toContain(fresh);
  expect(htmlOf(notice)).toContain(fresh);
  const confirm = await box.next(fresh, /Confirm your new email/);
  const link = linkIn(confirm, '/account/email/confirm');
  expect(htmlOf(confirm)).toContain('Confirm this address');

  expect((await visitor(t).get(link)).status).toBe(200); // opening it changes nothing
  expect((await accounts().get(id))!.email).toBe(old);
  const done = await follow(a, link, '/account/email/confirm');
  expect(done.status).toBe(303);
  expect(done.headers.location).toBe('/account?done=email');
  expect((await accounts().get(id))!.email).toBe(fresh);
  expect(await accounts().byEmail(old)).toBeUndefined();
  expect((await accounts().byEmail(fresh))!.id).toBe(id);
  const holders = (address: string) => t.api.database.db.selectFrom('accounts').select('id').where('emailKey', '=', address).execute();
  expect(await holders(old.toLowerCase())).toEqual([]);
  expect((await visitor(t).get(link)).status).toBe(410);
  expect((await signIn(visitor(t), old, PW)).status).toBe(401);
  expect((await signIn(visitor(t), fresh, PW)).status).toBe(303);
  // The old address is free for a new account.
  expect((await signUp(visitor(t), old, PW)).status).toBe(303);
  await box.next(old, /Confirm your email/);
});

test('an address taken meanwhile fails at confirmation, without saying whose', async () => {
  const mine = email('mine');
  const a = await confirmedAccount(mine);
  const wanted = email('wanted');
  await submit(a, '/account', '/account/email', { email: wanted, current: PW });
  const link = linkIn(await box.next(wanted, /Confirm your new email/), '/account/email/confirm');
  await confirmedAccount(wanted, 'someone else entirely');
  const refused = await follow(visitor(t), link, '/account/email/confirm');
  expect(refused.status).toBe(409);
  expect(refused.text).toContain('belongs to another account');
  const holder = (await accounts().byEmail(wanted))!;
  expect(refused.text).not.toContain(holder.id);
  expect(refused.text).not.toContain(holder.name);
  expect((await accounts().byEmail(mine))!.email).toBe(mine);
  const held = await t.api.database.db.selectFrom('accounts').select('id').where('emailKey', '=', wanted.toLowerCase()).execute();
  expect(held).toEqual([{ id: holder.id }]);
});

test('a key made on an account is mailed to its owner: name escaped, the key itself never', async () => {
  const mail = email();
  await confirmedAccount(mail);
  const account = (await accounts().byEmail(mail))!;
  await accounts().update(account.id, { plan: 'premium', name: 'Ada <b>' });
  const { key, record } = await t.api.keys.issue('premium', 'ci <script>', account.id);
  const notice = await box.next(mail, /new API key/);
  expect(notice.text).toContain('"ci <script>"');
  expect(notice.text).toContain(record.hint!);
  expect(htmlOf(notice)).toContain('ci &lt;script&gt;');
  expect(htmlOf(notice)).not.toContain('<script>');
  expect(htmlOf(notice)).toContain('Hello Ada &lt;b&gt;,');
  expect(`${notice.text}${htmlOf(notice)}`).not.toContain(key);
});

test('a request for a higher plan is mailed to every active admin and raised on the operator alert webhook', async () => {
  const hook = await webhookReceiver();
  const ops = email('ops');
  const u = await testApp({ SMTP_URL: box.url, MAIL_FROM: FROM, ADMIN_EMAIL: ops, ADMIN_PASSWORD: PW, ALERT_WEBHOOK_URL: hook.url });
  try {
    const held = new Accounts(u.api.database.db, u.api.keys);
    const second = email('second-admin');
    const retired = email('retired-admin');
    await held.create({ email: second, name: 'Second Admin', password: PW, role: 'admin' });
    await held.create({ email: retired, name: 'Retired Admin', password: PW, role: 'admin', status: 'suspended' });
    const user = email('asker');
    await held.create({ email: user, name: 'Ada <b>', password: PW });
    const a = visitor(u);
    expect((await signIn(a, user, PW)).status).toBe(303);
    const asked = await submit(a, '/account', '/account/upgrade', { plan: 'enterprise', message: 'About 20,000 calls a day <soon>' });
    expect(asked.status).toBe(303);

    for (const admin of [ops, second]) {
      const mail = await box.next(admin, /asks for the Enterprise plan/);
      expect(mail.text).toContain(`Ada <b> (${user}) asks to move from Free to Enterprise.`);
      expect(mail.text).toContain('They wrote: About 20,000 calls a day <soon>');
      expect(mail.text).toContain('http://127.0.0.1:3999/admin#queue-title');
      expect(htmlOf(mail)).toContain('Ada &lt;b&gt;');
    }
    const [alert] = await hook.waitFor(1);
    expect(JSON.parse(alert.body)).toMatchObject({ text: expect.stringContaining(`${user} asks for the Enterprise plan`) });
    // A suspended admin is not told; the operator's address gets one message, not two.
    await expect(box.next(retired, /asks for/, 1000)).rejects.toThrow();
    await expect(box.next(ops, /asks for/, 1000)).rejects.toThrow();
  } finally {
    await u.close();
    await hook.close();
  }
});

test('quota alerts at 80% and 100%: once per window and kind, on every instance together; none when turned off', async () => {
  const mail = email();
  const a = await confirmedAccount(mail);
  const id = (await accounts().byEmail(mail))!.id;
  await accounts().update(id, { plan: 'premium' });
  const second = await testApp({ SMTP_URL: box.url, MAIL_FROM: FROM }, { dataDir: t.dataDir });
  try {
    const window1 = new Date(Date.now() + 3600_000).toISOString();
    const figures = (used: number, resetAt = window1) => ({ plan: 'premium', limit: 5000, used, resetAt });
    t.api.keys.events.emit('quota.warning', id, figures(4000));
    second.api.keys.events.emit('quota.warning', id, figures(4000));
    t.api.keys.events.emit('quota.warning', id, figures(4100));
    const warning = await box.next(mail, /80% of your API allowance used/);
    expect(warning.text).toContain('used 4000 of its 5000 requests');
    expect(warning.text).toContain(`${t.api.config.publicUrl}/account#alerts`);
    expect(htmlOf(warning)).toContain('You have used 80% of your API allowance');

    second.api.keys.events.emit('quota.exhausted', id, figures(5000));
    t.api.keys.events.emit('quota.exhausted', id, figures(5000));
    const exhausted = await box.next(mail, /allowance is used up/);
    expect(exhausted.text).toContain('HTTP 429');
    expect(htmlOf(exhausted)).toContain('Your API allowance is used up');
    await new Promise((r) => setTimeout(r, 300));
    expect(box.waiting(mail)).toHaveLength(0);

    // The next window alerts again; each window's claim is kept until a day after the window ends.
    const window2 = new Date(Date.now() + 7200_000).toISOString();
    t.api.keys.events.emit('quota.warning', id, figures(4000, window2));
    await box.next(mail, /80%/);
    const claims = await t.api.database.db
      .selectFrom('claims')
      .select(['id', 'expiresAt'])
      .where('scope', '=', 'quota-mail')
      .where('id', 'in', [`${id}:quota.warning:${window1}`, `${id}:quota.warning:${window2}`])
      .orderBy('expiresAt')
      .execute();
    expect(claims.map((c) => c.expiresAt)).toEqual([Date.parse(window1) + 86400_000, Date.parse(window2) + 86400_000]);

    // Off on /account: no alert; on again: alerts.
    const off = await submit(a, '/account', '/account/alerts', {});
    expect(off.status).toBe(303);
    expect((await a.get('/account')).text).not.toMatch(/name="alerts" value="on" checked/);
    expect((await accounts().get(id))!.quotaAlerts).toBe(false);
    const window3 = new Date(Date.now() + 9000_000).toISOString();
    t.api.keys.events.emit('quota.warning', id, figures(4000, window3));
    await new Promise((r) => setTimeout(r, 300));
    expect(box.waiting(mail)).toHaveLength(0);
    await submit(a, '/account', '/account/alerts', { alerts: 'on' });
    expect((await a.get('/account')).text).toMatch(/name="alerts" value="on" checked/);
    t.api.keys.events.emit('quota.exhausted', id, figures(5000, window3));
    await box.next(mail, /used up/);
  } finally {
    await second.close();
  }
});

test('without SMTP: no mail, sign-up as before; an admin makes a one-time reset link, shown once', async () => {
  const p = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  try {
    const mail = email();
    const user = visitor(p);
    const up = await signUp(user, mail, PW);
    expect(up.headers.location).toBe('/dashboard');
    const account = (await new Accounts(p.api.database.db, p.api.keys).byEmail(mail))!;
    expect(account.unverified).toBeUndefined();
    expect((await user.get('/account')).text).toContain('cannot be changed here');
    expect((await user.get('/account')).text).not.toContain('Quota alerts');
    const forgot = await visitor(p).get('/login/forgot');
    expect(forgot.text).toContain('Ask an administrator');
    expect((await submit(visitor(p), '/login', '/login/forgot', { email: mail })).status).toBe(404);
    expect((await visitor(p).get('/signup/sent')).status).toBe(404);

    const admin = visitor(p);
    await signIn(admin, ADMIN, PW);
    const made = await submit(admin, `/admin/accounts/${account.id}`, `/admin/accounts/${account.id}/reset-link`, {});
    expect(made.status).toBe(200);
    const url = /<code id="reset-url">([^<]+)<\/code>/.exec(made.text)![1].replace(/&amp;/g, '&');
    const link = url.slice(p.api.config.publicUrl.length);
    expect(link).toMatch(/^\/login\/reset\?token=[\w-]{43}$/);
    expect((await admin.get(`/admin/accounts/${account.id}`)).text).not.toContain(tokenOf(link));

    const done = await follow(visitor(p), link, '/login/reset', { password: 'reset by admin' });
    expect(done.headers.location).toBe('/login?done=reset');
    expect((await user.get('/account')).status).toBe(303);
    expect((await visitor(p).get(link)).status).toBe(410);
    expect((await signIn(visitor(p), mail, 'reset by admin')).status).toBe(303);
  } finally {
    await p.close();
  }
});

test("a send that fails is logged and the flow goes on; SMTP_URL's user and password reach the server", async () => {
  const { lines, sink } = logSink();
  const down = await smtpServer();
  const url = down.url;
  await down.close(); // nothing listens there now
  const p = await testApp({ SMTP_URL: url, LOG_LEVEL: 'info' }, { log: pino({ level: 'info' }, sink) });
  try {
    const mail = email();
    expect((await signUp(visitor(p), mail, PW)).headers.location).toBe('/signup/sent');
    expect((await submit(visitor(p), '/login/forgot', '/login/forgot', { email: mail })).status).toBe(303);
    const deadline = Date.now() + 10_000;
    while (lines.filter((l) => l.includes('mail: cannot send')).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(lines.filter((l) => l.includes('mail: cannot send')).length).toBe(2);
  } finally {
    await p.close();
  }

  const authed = await testApp({ SMTP_URL: box.url.replace('//', '//mailer:s%40cret@') });
  try {
    const mail = email();
    await signUp(visitor(authed), mail, PW);
    await box.next(mail, /Confirm your email/);
    expect(box.logins).toContainEqual({ username: 'mailer', password: 's@cret' });
  } finally {
    await authed.close();
  }
});

test('on Redis: a link mailed by one instance works once on another; a quota alert heard by both is sent once', async () => {
  await onTwoInstances(
    async (x, y) => {
      const mail = email('redis');
      await signUp(visitor(x), mail, PW);
      const link = linkIn(await box.next(mail, /Confirm your email/), '/signup/confirm');
      const a = visitor(y);
      const page = await a.get(link);
      const done = await a
        .post('/signup/confirm')
        .type('form')
        .send({ csrf: csrfOf(page.text), token: tokenOf(link), password: PW });
      expect(done.headers.location).toBe('/dashboard');
      expect((await visitor(x).get(link)).status).toBe(410);

      const id = (await new Accounts(x.api.database.db, x.api.keys).byEmail(mail))!.id;
      const figures = { plan: 'premium', limit: 5000, used: 5000, resetAt: new Date(Date.now() + 3600_000).toISOString() };
      x.api.keys.events.emit('quota.exhausted', id, figures);
      y.api.keys.events.emit('quota.exhausted', id, figures);
      await box.next(mail, /used up/);
      await new Promise((r) => setTimeout(r, 300));
      expect(box.waiting(mail)).toHaveLength(0);
    },
    { SMTP_URL: box.url },
  );
});
