// Portal accounts and authentication (OWASP): sign-up, sign-in, sign-out, password change, sessions (new id
// at sign-in, cookie flags, ended by a password change), CSRF on every form, sign-in throttling, the same
// message for a wrong email and a wrong password, escaping, sign-up modes and invites, the first admin
// from the environment and the CLI, nothing secret in the log; and the core flow once on Redis.
import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import request from 'supertest';
import { appForTests, testApp, onTwoInstances } from '../helpers/app.js';
import { csrfOf, sessionCookie, signIn, signOut, signUp, submit, visitor } from '../helpers/portal.js';
import { Invites } from '../../portal/auth/invites.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { hashPassword, verifyPassword, passwordProblem } from '../../portal/accounts/passwords.js';
import { logSink } from '../helpers/log-sink.js';

const PW = 'correct horse battery';
const t = appForTests();

const email = () => `user-${crypto.randomUUID().slice(0, 8)}@example.com`;

test('passwords: argon2id PHC strings at OWASP parameters, verified; weak ones refused', async () => {
  const phc = await hashPassword(PW);
  expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  expect(await verifyPassword(PW, phc)).toBe(true);
  expect(await verifyPassword(`${PW}!`, phc)).toBe(false);
  expect(await verifyPassword(PW, 'not a hash')).toBe(false);
  expect(passwordProblem('short', 'a@b.c')).toMatch(/at least 8/);
  expect(passwordProblem('x'.repeat(129), 'a@b.c')).toMatch(/at most 128/);
  expect(passwordProblem('Me@Example.com', 'me@example.com')).toMatch(/email/);
  expect(passwordProblem(PW, 'me@example.com')).toBeUndefined();
});

test('sign up → signed in; sign out; sign in again with a new session id each time', async () => {
  const a = visitor(t);
  const mail = email();
  const page = await a.get('/signup');
  expect(page.status).toBe(200);
  expect(page.text).toMatch(/<label>Email[\s\S]*<input name="email" type="email"/);
  const pre = sessionCookie(page);
  expect(pre).toBeDefined();

  const up = await a
    .post('/signup')
    .type('form')
    .send({ csrf: csrfOf(page.text), email: mail, name: 'Ada', password: PW });
  expect(up.status).toBe(303);
  expect(up.headers.location).toBe('/dashboard');
  const signedUp = sessionCookie(up);
  expect(signedUp).toBeDefined();
  expect(signedUp).not.toBe(pre);

  const account = await a.get('/account');
  expect(account.status).toBe(200);
  expect(account.text).toContain(mail);
  expect(account.text).toContain('Sign out');

  expect((await signOut(a)).status).toBe(303);
  const after = await a.get('/account');
  expect(after.status).toBe(303);
  expect(after.headers.location).toBe('/login?next=%2Faccount');

  // The old session id is dead on the server, whatever the browser still holds.
  const replay = await request(t.app).get('/account').set('Cookie', `uua_session=${signedUp}`);
  expect(replay.status).toBe(303);

  const login = await a.get('/login');
  const before = sessionCookie(login);
  const ok = await a
    .post('/login')
    .type('form')
    .send({ csrf: csrfOf(login.text), email: mail.toUpperCase(), password: PW });
  expect(ok.status).toBe(303);
  const fresh = sessionCookie(ok);
  expect(fresh).toBeDefined();
  expect(fresh).not.toBe(before);
  // The pre-session is gone: its id no longer carries a CSRF token.
  const stale = await request(t.app)
    .post('/login')
    .set('Cookie', `uua_session=${before}`)
    .type('form')
    .send({ csrf: csrfOf(login.text), email: mail, password: PW });
  expect(stale.status).toBe(403);
  expect((await a.get('/account')).status).toBe(200);
});

test('sign-in goes back to a local `next` only', async () => {
  const a = visitor(t);
  const mail = email();
  await signUp(a, mail, PW);
  await signOut(a);
  const back = await submit(a, '/login?next=%2Faccount', '/login', { email: mail, password: PW, next: '/account' });
  expect(back.headers.location).toBe('/account');
  await signOut(a);
  const away = await submit(a, '/login', '/login', { email: mail, password: PW, next: '//evil.example/' });
  expect(away.headers.location).toBe('/dashboard');
});

test('change password: needs the current one, signs out other sessions, keeps this one with a new id', async () => {
  const a = visitor(t);
  const b = visitor(t);
  const mail = email();
  await signUp(a, mail, PW);
  expect((await signIn(b, mail, PW)).status).toBe(303);

  const wrong = await submit(a, '/account', '/account/password', { current: 'not my password', password: 'a new passphrase' });
  expect(wrong.status).toBe(422);
  expect(wrong.text).toContain('current password is not right');
  const weak = await submit(a, '/account', '/account/password', { current: PW, password: 'short' });
  expect(weak.status).toBe(422);

  const page = await a.get('/account');
  const changed = await a
    .post('/account/password')
    .type('form')
    .send({ csrf: csrfOf(page.text), current: PW, password: 'a new passphrase' });
  expect(changed.status).toBe(303);
  expect(changed.headers.location).toBe('/account?done=password');
  expect(sessionCookie(changed)).toBeDefined();
  expect((await a.get('/account?done=password')).text).toContain('password was changed');
  expect((await b.get('/account')).status).toBe(303); // the other session ended

  const c = visitor(t);
  expect((await signIn(c, mail, PW)).status).toBe(401);
  expect((await signIn(c, mail, 'a new passphrase')).status).toBe(303);
});

test("CSRF: a form post without the session's token gets 403 with a page; the header works for fetch", async () => {
  const a = visitor(t);
  const mail = email();
  // Sign-in and sign-up too (login CSRF): no session at all, then a session but no token, then a wrong one.
  const bare = await request(t.app).post('/login').type('form').send({ email: mail, password: PW });
  expect(bare.status).toBe(403);
  expect(bare.headers['content-type']).toMatch(/text\/html/);
  expect(bare.text).toContain('Your session ended');
  expect(bare.text).not.toContain(PW); // what was typed comes back, never the password
  expect(bare.headers['content-security-policy']).toContain("default-src 'self'");
  expect(bare.headers['cache-control']).toBe('no-store');
  await a.get('/signup');
  expect((await a.post('/signup').type('form').send({ email: mail, name: 'X', password: PW })).status).toBe(403);
  expect(
    (
      await a
        .post('/signup')
        .type('form')
        .send({ csrf: 'x'.repeat(43), email: mail, name: 'X', password: PW })
    ).status,
  ).toBe(403);

  await signUp(a, mail, PW);
  expect((await a.post('/account/profile').type('form').send({ name: 'Mallory' })).status).toBe(403);
  expect((await a.post('/logout')).status).toBe(403);
  // Another visitor's token is no good either.
  const other = visitor(t);
  const theirs = csrfOf((await other.get('/login')).text);
  expect((await a.post('/account/profile').type('form').send({ name: 'Mallory', csrf: theirs })).status).toBe(403);
  // A cross-site request is refused even with the token (Fetch Metadata).
  const mine = csrfOf((await a.get('/account')).text);
  expect(
    (await a.post('/account/profile').set('Sec-Fetch-Site', 'cross-site').type('form').send({ name: 'Mallory', csrf: mine })).status,
  ).toBe(403);
  const viaHeader = await a.post('/account/profile').set('X-CSRF-Token', mine).send({ name: 'Grace' });
  expect(viaHeader.status).toBe(303);
  expect((await a.get('/account')).text).toContain('value="Grace"');
});

test('cookie flags: HttpOnly, SameSite=Lax, Path=/, no Expires; Secure behind https (TRUST_PROXY)', async () => {
  const plain = await request(t.app).get('/login');
  const cookie = ([] as string[]).concat(plain.headers['set-cookie'])[0];
  expect(cookie).toMatch(/^uua_session=[A-Za-z0-9_-]{43}; /);
  expect(cookie).toContain('HttpOnly');
  expect(cookie).toContain('SameSite=Lax');
  expect(cookie).toContain('Path=/');
  expect(cookie).not.toMatch(/Secure|Expires|Max-Age/);
  expect(plain.headers['content-security-policy']).toContain("default-src 'self'");
  expect(plain.headers['cache-control']).toBe('no-store');

  const proxied = await testApp({ TRUST_PROXY: 'true' });
  try {
    const https = await request(proxied.app).get('/login').set('X-Forwarded-Proto', 'https');
    expect(([] as string[]).concat(https.headers['set-cookie'])[0]).toMatch(/HttpOnly; SameSite=Lax; Secure/);
    const http = await request(proxied.app).get('/login');
    expect(([] as string[]).concat(http.headers['set-cookie'])[0]).not.toContain('Secure');
  } finally {
    await proxied.close();
  }
  const httpsSite = await testApp({ PUBLIC_URL: 'https://api.example.com' });
  try {
    expect(([] as string[]).concat((await request(httpsSite.app).get('/login')).headers['set-cookie'])[0]).toContain('Secure');
  } finally {
    await httpsSite.close();
  }
});

test('what a user typed is shown escaped', async () => {
  const a = visitor(t);
  const name = '<script>alert(1)</script>';
  const up = await signUp(a, email(), PW, name);
  expect(up.status).toBe(303);
  const page = await a.get('/account');
  expect(page.text).not.toContain(name);
  expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  // A refused form echoes the email typed, escaped too.
  const b = visitor(t);
  const bad = await signUp(b, '"><img src=x onerror=alert(1)>@x.io', 'short', name);
  expect(bad.status).toBe(422);
  expect(bad.text).not.toContain('<img src=x');
  expect(bad.text).not.toContain(name);
});

test('the same message for a wrong email and a wrong password', async () => {
  const mail = email();
  await signUp(visitor(t), mail, PW);
  const wrongPassword = await signIn(visitor(t), mail, 'not the password');
  const wrongEmail = await signIn(visitor(t), email(), PW);
  for (const r of [wrongPassword, wrongEmail]) {
    expect(r.status).toBe(401);
    expect(r.text).toContain('Wrong email or password');
  }
  const strip = (s: string) => s.replace(/value="[^"]*"/g, '');
  expect(strip(wrongPassword.text)).toBe(strip(wrongEmail.text));
});

test('the 11th wrong password in a row is throttled (429); another account from another IP still signs in', async () => {
  const p = await testApp({ TRUST_PROXY: 'true' });
  try {
    const victim = email();
    const other = email();
    await signUp(visitor(p), victim, PW);
    await signUp(visitor(p), other, PW);
    const attacker = visitor(p);
    const from = { 'X-Forwarded-For': '203.0.113.7' };
    for (let i = 0; i < 10; i++) expect((await signIn(attacker, victim, `wrong-${i}-password`, from)).status).toBe(401);
    const eleventh = await signIn(attacker, victim, 'wrong-again-password', from);
    expect(eleventh.status).toBe(429);
    expect(eleventh.text).toContain('Too many failed sign-ins');
    expect(eleventh.text).toMatch(/Try again after \d\d:\d\d UTC \(in 1[45] minutes\)/);
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(800);
    // Throttled per account: even the right password, even from another IP, waits.
    expect((await signIn(visitor(p), victim, PW, { 'X-Forwarded-For': '198.51.100.9' })).status).toBe(429);
    // Throttled per IP: another account from the attacker's IP waits too.
    expect((await signIn(visitor(p), other, PW, from)).status).toBe(429);
    // Another account from another IP is not affected.
    expect((await signIn(visitor(p), other, PW, { 'X-Forwarded-For': '198.51.100.10' })).status).toBe(303);
  } finally {
    await p.close();
  }
});

test("a success clears the account's run of failures", async () => {
  const p = await testApp({ TRUST_PROXY: 'true' });
  try {
    const mail = email();
    await signUp(visitor(p), mail, PW);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9; i++)
        expect((await signIn(visitor(p), mail, 'wrong password', { 'X-Forwarded-For': `198.51.100.${round * 10 + i}` })).status).toBe(401);
      expect((await signIn(visitor(p), mail, PW, { 'X-Forwarded-For': '192.0.2.1' })).status).toBe(303);
    }
  } finally {
    await p.close();
  }
});

test('SIGNUP=approval: new accounts wait for an admin; an invite link skips the wait', async () => {
  const p = await testApp({ SIGNUP: 'approval' });
  try {
    const mail = email();
    const a = visitor(p);
    expect((await a.get('/signup')).text).toContain('approved by an administrator');
    const up = await signUp(a, mail, PW);
    expect(up.status).toBe(202);
    expect(up.text).toContain('waits for an administrator');
    expect(sessionCookie(up)).toBeUndefined();
    expect((await a.get('/account')).status).toBe(303);
    const login = await signIn(visitor(p), mail, PW);
    expect(login.status).toBe(403);
    expect(login.text).toContain('Waiting for approval');

    const accounts = new Accounts(p.api.database.db, p.api.keys);
    await accounts.update((await accounts.byEmail(mail))!.id, { status: 'active' });
    expect((await signIn(visitor(p), mail, PW)).status).toBe(303);

    const { token } = await new Invites(p.api.database.db).create({ days: 1, createdBy: 'test' });
    const invited = await signUp(visitor(p), email(), PW, 'Invited', token);
    expect(invited.status).toBe(303);
  } finally {
    await p.close();
  }
});

test('SIGNUP=closed: only an invite link signs up, once; its plan is preset', async () => {
  const p = await testApp({ SIGNUP: 'closed' });
  try {
    const a = visitor(p);
    const closed = await a.get('/signup');
    expect(closed.status).toBe(403);
    expect(closed.text).toContain('Sign-up is by invitation');
    expect((await a.get('/login')).text).toContain('New accounts are by invitation');
    expect((await submit(a, '/login', '/signup', { email: email(), name: 'X', password: PW })).status).toBe(403);

    const { token } = await new Invites(p.api.database.db).create({ days: 7, plan: 'premium', createdBy: 'test' });
    const page = await a.get(`/signup?invite=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // The page says what the invite opens: Premium, not the Free tier.
    expect(page.text).toContain('This invitation opens a <strong>Premium</strong> account');
    expect(page.text).toContain('<strong>5,000 requests per 24 hours</strong>');
    expect(page.text).not.toContain('shared free key');
    const mail = email();
    const up = await a
      .post('/signup')
      .type('form')
      .send({ csrf: csrfOf(page.text), email: mail, name: 'Invited', password: PW, invite: token });
    expect(up.status).toBe(303);
    expect(await new Accounts(p.api.database.db, p.api.keys).byEmail(mail)).toMatchObject({ plan: 'premium', status: 'active' });

    const again = await visitor(p).get(`/signup?invite=${token}`);
    expect(again.status).toBe(410);
    expect((await submit(visitor(p), '/login', '/signup', { email: email(), name: 'Second', password: PW, invite: token })).status).toBe(
      410,
    );
    expect((await visitor(p).get('/signup?invite=made-up')).status).toBe(410);
  } finally {
    await p.close();
  }
});

test('an invite used by two sign-ups at once makes one account', async () => {
  const p = await testApp({ SIGNUP: 'closed' });
  try {
    const { token } = await new Invites(p.api.database.db).create({ days: 1, createdBy: 'test' });
    const [x, y] = [visitor(p), visitor(p)];
    const [px, py] = [await x.get(`/signup?invite=${token}`), await y.get(`/signup?invite=${token}`)];
    const results = await Promise.all([
      x
        .post('/signup')
        .type('form')
        .send({ csrf: csrfOf(px.text), email: email(), name: 'X', password: PW, invite: token }),
      y
        .post('/signup')
        .type('form')
        .send({ csrf: csrfOf(py.text), email: email(), name: 'Y', password: PW, invite: token }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 410]);
    expect(await new Accounts(p.api.database.db, p.api.keys).count()).toBe(1);
  } finally {
    await p.close();
  }
});

test('one email, one account, even for two sign-ups at once', async () => {
  const mail = email();
  const [x, y] = [visitor(t), visitor(t)];
  const [px, py] = [await x.get('/signup'), await y.get('/signup')];
  const results = await Promise.all([
    x
      .post('/signup')
      .type('form')
      .send({ csrf: csrfOf(px.text), email: mail, name: 'X', password: PW }),
    y
      .post('/signup')
      .type('form')
      .send({ csrf: csrfOf(py.text), email: mail.toUpperCase(), name: 'Y', password: PW }),
  ]);
  expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
  expect(results.find((r) => r.status === 409)!.text).toContain('exists already');
});

test('ADMIN_EMAIL and ADMIN_PASSWORD at boot make the first admin; an existing password is never replaced', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-admin-'));
  const first = await testApp({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: PW }, { dataDir });
  try {
    const a = visitor(first);
    expect((await signIn(a, 'root@example.com', PW)).status).toBe(303);
    expect((await a.get('/admin')).status).toBe(200);
    // The first user to sign up is an ordinary user.
    const b = visitor(first);
    await signUp(b, email(), PW);
    expect((await b.get('/admin')).status).toBe(403);
  } finally {
    await first.close();
  }
  const { lines, sink } = logSink();
  const again = await testApp(
    { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'another passphrase', LOG_LEVEL: 'info' },
    { dataDir, log: pino({ level: 'info' }, sink) },
  );
  try {
    expect((await signIn(visitor(again), 'root@example.com', 'another passphrase')).status).toBe(401);
    expect((await signIn(visitor(again), 'root@example.com', PW)).status).toBe(303);
    expect(lines.join('')).toContain('password was left as it is');
    expect(lines.join('')).not.toContain('another passphrase');
  } finally {
    await again.close();
  }
});

test('ADMIN_EMAIL of an existing account promotes it', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-admin-'));
  const mail = email();
  const first = await testApp({}, { dataDir });
  await signUp(visitor(first), mail, PW);
  await first.close();
  const second = await testApp({ ADMIN_EMAIL: mail }, { dataDir });
  try {
    const a = visitor(second);
    await signIn(a, mail, PW);
    expect((await a.get('/admin')).status).toBe(200);
  } finally {
    await second.close();
  }
});

const run = promisify(execFile);
const cli = (dataDir: string, args: string[], env: Record<string, string> = {}) =>
  run(path.resolve('node_modules/.bin/tsx'), ['scripts/keys.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: '', ...env },
  });

test('CLI: `admin <email> [name]` creates (or promotes) an admin; `accounts` lists accounts', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-cli-'));
  const made = await cli(dataDir, ['admin', 'ops@example.com', 'Ops', 'Team'], { ADMIN_PASSWORD: PW });
  expect(made.stdout).toMatch(/ops@example\.com \(acc_[\w-]+\): admin created/);
  expect(made.stdout + made.stderr).not.toContain(PW);
  const child = execFile(path.resolve('node_modules/.bin/tsx'), ['scripts/keys.ts', 'admin', 'typed@example.com'], {
    env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: '', ADMIN_PASSWORD: '' },
  });
  child.stdin!.end('typed in passphrase\n');
  await new Promise((resolve) => child.on('exit', resolve));
  expect(child.exitCode).toBe(0);
  const listed = await cli(dataDir, ['accounts']);
  expect(listed.stdout).toMatch(/ops@example\.com\tadmin\tfree\tactive\t.*\tOps Team/);
  expect(listed.stdout).toContain('typed@example.com\tadmin');

  const app = await testApp({}, { dataDir });
  try {
    const a = visitor(app);
    expect((await signIn(a, 'ops@example.com', PW)).status).toBe(303);
    expect((await a.get('/admin')).status).toBe(200);
    expect((await signIn(visitor(app), 'typed@example.com', 'typed in passphrase')).status).toBe(303);
    await signUp(visitor(app), 'later@example.com', PW);
  } finally {
    await app.close();
  }
  const promoted = await cli(dataDir, ['admin', 'later@example.com']);
  expect(promoted.stdout).toContain('admin promoted');
  await expect(cli(dataDir, ['admin', 'weak@example.com'], { ADMIN_PASSWORD: 'short' })).rejects.toMatchObject({
    stderr: expect.stringContaining('at least 8'),
  });
}, 60_000);

test('no password, session id, CSRF token, invite or key in the server log', async () => {
  const { lines, sink } = logSink();
  const p = await testApp(
    { LOG_LEVEL: 'info', ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: PW },
    { log: pino({ level: 'info' }, sink) },
  );
  try {
    const a = visitor(p);
    const mail = email();
    const up = await signUp(a, mail, 'sign-up passphrase');
    const session = sessionCookie(up)!;
    const csrf = csrfOf((await a.get('/account')).text);
    await signIn(visitor(p), mail, 'a wrong passphrase');
    await submit(a, '/account', '/account/password', { current: 'sign-up passphrase', password: 'second passphrase' });
    const admin = visitor(p);
    await signIn(admin, 'boss@example.com', PW);
    const invite = await submit(admin, '/admin/invites', '/admin/invites', { plan: 'premium', days: '7' });
    const token = /invite=([\w-]+)/.exec(invite.text)![1];
    const account = await new Accounts(p.api.database.db, p.api.keys).byEmail(mail);
    const { key } = await p.api.keys.issue('premium', 'log test', account!.id);
    await request(p.app).get('/api/v1/tools/ccgen').query({ apikey: key, bin: '457173' });
    await new Promise((r) => setTimeout(r, 50));
    const all = lines.join('');
    expect(all).toContain('portal: account created');
    for (const secret of [PW, 'sign-up passphrase', 'a wrong passphrase', 'second passphrase', session, csrf, token, key])
      expect(all).not.toContain(secret);
  } finally {
    await p.close();
  }
});

test('on Redis: sign up, sign out, sign in, change password, throttle (sessions and counters shared by two instances)', async () => {
  await onTwoInstances(
    async (x, y) => {
      const mail = email();
      const a = visitor(x);
      expect((await signUp(a, mail, PW)).status).toBe(303);
      // A session made on one instance is known to the other.
      const onX = sessionCookie(await signIn(visitor(x), mail, PW));
      expect((await request(y.app).get('/account').set('Cookie', `uua_session=${onX}`)).status).toBe(200);
      expect((await signOut(a)).status).toBe(303);
      expect((await signIn(a, mail, PW)).status).toBe(303);
      expect((await submit(a, '/account', '/account/password', { current: PW, password: 'redis passphrase' })).status).toBe(303);
      expect((await signIn(visitor(y), mail, 'redis passphrase')).status).toBe(303);
      // Failures counted on both instances add up.
      const from = { 'X-Forwarded-For': '203.0.113.99' };
      for (let i = 0; i < 10; i++) expect((await signIn(visitor(i % 2 ? x : y), mail, 'wrong password', from)).status).toBe(401);
      expect((await signIn(visitor(x), mail, 'redis passphrase', from)).status).toBe(429);
    },
    { TRUST_PROXY: 'true' },
  );
});
