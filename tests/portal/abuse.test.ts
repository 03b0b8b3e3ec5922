// Abuse from outside: sign-up throttled per client IP (the 11th in a minute gets 429 with a page that says
// when to come back), and OWASP's device cookies: with an account locked out by failures from other
// addresses, the owner's browser, which signed in before, still signs in on its own small allowance, while
// a browser without the cookie, with a forged one, or with one of another account gets 429; a proof ends with
// its account (deleted, reset, moved to another address), and all of an account's browsers share one ceiling.
import crypto from 'node:crypto';
import { testApp, type TestApp } from '../helpers/app.js';
import request from 'supertest';
import { csrfOf, sessionCookie, signIn, signOut, signUp, submit, visitor, type Agent } from '../helpers/portal.js';
import { DEVICE_MAX_FAILURES, MAX_FAILURES } from '../../portal/auth/throttle.js';

const PW = 'correct horse battery';
const email = () => `abuse-${crypto.randomUUID().slice(0, 8)}@example.com`;
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

/** The uua_device cookie a response set. */
const deviceCookie = (res: { headers: Record<string, unknown> }) =>
  ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []).find((c) => c.startsWith('uua_device='));

describe('sign-up throttle (SIGNUP_LIMIT at its default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true', SIGNUP_LIMIT: undefined });
  });
  afterAll(async () => {
    await t.close();
  });

  test('the 11th sign-up from one IP in a minute gets 429 with a clear page; another IP is not held up', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 10; i++) {
      const res = await submit(visitor(t), '/signup', '/signup', { email: email(), name: `User ${i}`, password: PW }, from(ip));
      expect(res.status).toBe(303);
    }
    const eleventh = await submit(visitor(t), '/signup', '/signup', { email: email(), name: 'Eleven', password: PW }, from(ip));
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['content-type']).toMatch(/text\/html/);
    expect(eleventh.text).toContain('Too many sign-ups from your address');
    expect(eleventh.text).toMatch(
      /At most 10 accounts can be created from one address \(IP\) per minute\. Try again after \d\d:\d\d:\d\d UTC \(in \d+ seconds?\)\./,
    );
    const retry = Number(eleventh.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    // A refused attempt made no account; the sign-up page itself is still shown (only attempts count).
    expect((await visitor(t).get('/signup').set(from(ip))).status).toBe(200);
    expect(
      (await submit(visitor(t), '/signup', '/signup', { email: email(), name: 'Other', password: PW }, from('203.0.113.21'))).status,
    ).toBe(303);
  });
});

describe('device cookies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await t.close();
  });

  /** An account whose owner signed in once (so its browser holds a device cookie), then signed out. */
  async function ownerOf(mail: string): Promise<Agent> {
    await signUp(visitor(t), mail, PW);
    const owner = visitor(t);
    const res = await signIn(owner, mail, PW, from('198.51.100.1'));
    expect(res.status).toBe(303);
    expect(deviceCookie(res)).toMatch(
      /^uua_device=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=15552000; HttpOnly; SameSite=Strict$/,
    );
    proofs.set(mail, /^uua_device=([^;]+)/.exec(deviceCookie(res)!)![1]);
    await signOut(owner);
    return owner;
  }
  const proofs = new Map<string, string>();

  /** A sign-in from a browser holding exactly this device cookie (no cookie jar: the headers by hand). */
  async function signInWithCookie(device: string, mail: string, ip: string) {
    const page = await request(t.app).get('/login');
    const session = sessionCookie(page)!;
    return request(t.app)
      .post('/login')
      .set('Cookie', `uua_session=${session}; uua_device=${device}`)
      .set(from(ip))
      .type('form')
      .send({ csrf: csrfOf(page.text), email: mail, password: PW });
  }

  /** MAX_FAILURES wrong passwords, each from another address and a fresh browser: the account is locked. */
  async function attack(mail: string) {
    for (let i = 0; i < MAX_FAILURES; i++)
      expect((await signIn(visitor(t), mail, `wrong-${i}-password`, from(`203.0.113.${100 + i}`))).status).toBe(401);
  }

  test("under attack from other addresses, the owner's browser signs in; a browser without its cookie gets 429", async () => {
    const mail = email();
    const owner = await ownerOf(mail);
    await attack(mail);
    const stranger = await signIn(visitor(t), mail, PW, from('192.0.2.50'));
    expect(stranger.status).toBe(429);
    expect(stranger.text).toContain('Too many failed sign-ins');
    expect(stranger.text).toContain('A browser you signed in with before keeps an allowance of its own.');
    // The owner's browser, from any address (even one the attacker used).
    const back = await signIn(owner, mail, PW, from('203.0.113.100'));
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/dashboard');
    // Each sign-in hands the browser a new proof.
    expect(deviceCookie(back)).toBeDefined();
    expect((await owner.get('/account')).status).toBe(200);
    // The untrusted lockout stands: the owner's success did not lift it for others.
    expect((await signIn(visitor(t), mail, PW, from('192.0.2.51'))).status).toBe(429);
  });

  test("a trusted browser has its own small allowance: past it that browser waits, others' lockout is their own", async () => {
    const mail = email();
    const owner = await ownerOf(mail);
    for (let i = 0; i < DEVICE_MAX_FAILURES; i++)
      expect((await signIn(owner, mail, 'not my password', from('198.51.100.1'))).status).toBe(401);
    expect((await signIn(owner, mail, PW, from('198.51.100.1'))).status).toBe(429);
    // Those failures were the device's only: an untrusted browser still signs in.
    expect((await signIn(visitor(t), mail, PW, from('198.51.100.2'))).status).toBe(303);
  });

  test("proofs end with their account: a deleted account's proofs are no cookie for the next account of its address", async () => {
    const mail = email();
    // The attacker signs the address up, gathers proofs in many browsers, then deletes the account.
    await signUp(visitor(t), mail, PW);
    const kept: string[] = [];
    let last: Agent | undefined;
    for (let i = 0; i < 4; i++) {
      last = visitor(t);
      const res = await signIn(last, mail, PW, from(`198.51.100.${60 + i}`));
      expect(res.status).toBe(303);
      kept.push(/^uua_device=([^;~]+)/.exec(deviceCookie(res)!)![1]);
    }
    expect((await submit(last!, '/account', '/account/delete', { password: PW })).status).toBe(303);
    // The victim signs up with the address later; the attacker locks strangers out, then tries the old proofs.
    await signUp(visitor(t), mail, 'the victims own passphrase');
    await attack(mail);
    for (const [i, proof] of kept.entries()) {
      const res = await signInWithCookie(proof, mail, `192.0.2.${70 + i}`);
      expect(res.status).toBe(429);
    }
  });

  test("a trusted browser's allowance is the account's too: proofs from many browsers add no guesses", async () => {
    const mail = email();
    await signUp(visitor(t), mail, PW);
    const proofsOf: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await signIn(visitor(t), mail, PW, from(`198.51.100.${80 + i}`));
      proofsOf.push(/^uua_device=([^;~]+)/.exec(deviceCookie(res)!)![1]);
    }
    const statuses: number[] = [];
    for (const proof of proofsOf)
      for (let i = 0; i < DEVICE_MAX_FAILURES; i++) {
        const page = await request(t.app).get('/login');
        const res = await request(t.app)
          .post('/login')
          .set('Cookie', `uua_session=${sessionCookie(page)!}; uua_device=${proof}`)
          .set(from('192.0.2.90'))
          .type('form')
          .send({ csrf: csrfOf(page.text), email: mail, password: `guess-${statuses.length}-password` });
        statuses.push(res.status);
      }
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES);
    expect(statuses.slice(MAX_FAILURES).every((s) => s === 429)).toBe(true);
  });

  test("a forged or tampered cookie, or another account's, counts as no cookie", async () => {
    const mail = email();
    const other = email();
    const owner = await ownerOf(mail);
    const otherOwner = await ownerOf(other);
    await attack(mail);
    // The other account's browser holds a valid proof, but not for this account.
    expect((await signIn(otherOwner, mail, PW, from('192.0.2.60'))).status).toBe(429);
    // The owner's proof, as it is, works from a browser made by hand; with its MAC or nonce changed, or as
    // a made-up one, it does not.
    const proof = proofs.get(mail)!;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const forged of [flip(proof, proof.length - 5), flip(proof, 3), `${'A'.repeat(22)}.${'B'.repeat(43)}`, 'garbage'])
      expect((await signInWithCookie(forged, mail, '192.0.2.61')).status).toBe(429);
    expect((await signInWithCookie(proof, mail, '192.0.2.62')).status).toBe(303);
    expect((await signIn(owner, mail, PW, from('192.0.2.63'))).status).toBe(303);
  });

  test("one browser keeps the proofs of several accounts: signing in to a second does not push out the first's", async () => {
    const first = email();
    const second = email();
    await signUp(visitor(t), first, PW);
    await signUp(visitor(t), second, PW);
    const browser = visitor(t);
    expect((await signIn(browser, first, PW)).status).toBe(303);
    await signOut(browser);
    const res = await signIn(browser, second, PW);
    expect(deviceCookie(res)).toMatch(/^uua_device=[^;~]+~[^;~]+;/);
    await signOut(browser);
    await attack(first);
    await attack(second);
    expect((await signIn(browser, first, PW)).status).toBe(303);
    await signOut(browser);
    expect((await signIn(browser, second, PW)).status).toBe(303);
  });

  test('a wrong current password on /account counts on the device too; the lockout of strangers does not stop the owner there', async () => {
    const mail = email();
    const owner = await ownerOf(mail);
    expect((await signIn(owner, mail, PW)).status).toBe(303);
    await attack(mail);
    const changed = await submit(owner, '/account', '/account/password', { current: PW, password: 'a brand new passphrase' });
    expect(changed.status).toBe(303);
  });
});
