// The meter's own quota events, end to end: calls through the API bring an account's allowance to 80% and
// 100%, and its owner hears of each once, by email (a real SMTP server on loopback) and by a signed webhook
// (checked with the standardwebhooks package); an admin's decision on an upgrade request is mailed too.
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, type TestApp } from '../helpers/app.js';
import { htmlOf, linkIn, smtpServer, type Mailbox } from '../helpers/smtp.js';
import { webhookReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { WebhookSettingsStore } from '../../portal/webhooks/settings.js';
import { csrfOf, signIn, signUp, submit, visitor, type Agent } from '../helpers/portal.js';

let box: Mailbox;
let hooks: Receiver;
let t: TestApp;
const PW = 'correct horse battery';
const ADMIN = 'notices-admin@example.com';

beforeAll(async () => {
  box = await smtpServer();
  hooks = await webhookReceiver();
  t = await testApp({
    SMTP_URL: box.url,
    MAIL_FROM: 'API <api@example.com>',
    PLAN_PREMIUM_LIMIT: '5',
    ADMIN_EMAIL: ADMIN,
    ADMIN_PASSWORD: PW,
  });
});
afterAll(async () => {
  await t?.close();
  await hooks?.close();
  await box?.close();
});

const accounts = () => new Accounts(t.api.database.db, t.api.keys);

test('calls that reach 80% and 100% of the allowance alert the owner once each, by mail and webhook', async () => {
  const mail = `alerts-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const account = (await accounts().create({ email: mail, name: 'Alerted', password: 'a long enough password 1', plan: 'premium' }))!;
  const settings = await new WebhookSettingsStore(t.api.database.db).save(account.id, {
    url: hooks.url,
    events: ['quota.warning', 'quota.exhausted'],
  });
  hooks.secret = settings.secret;
  const { key } = await t.api.keys.issue('premium', 'alerting', account.id);
  const statuses = [];
  for (let i = 0; i < 7; i++)
    statuses.push((await request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);

  await box.next(mail, /A new API key was created/);
  const warning = await box.next(mail, /80% of your API allowance used/);
  expect(warning.text).toContain('used 4 of its 5 requests');
  await box.next(mail, /allowance is used up/);
  const got = await hooks.waitFor(2);
  expect(got.map((r) => r.error)).toEqual([undefined, undefined]);
  expect(got.map((r) => r.verified)).toEqual([
    expect.objectContaining({ type: 'quota.warning', data: expect.objectContaining({ plan: 'premium', limit: 5, used: 4 }) }),
    expect.objectContaining({ type: 'quota.exhausted', data: expect.objectContaining({ limit: 5, used: 5 }) }),
  ]);
  // The calls past the allowance tell nothing more.
  await new Promise((r) => setTimeout(r, 300));
  expect(box.waiting(mail)).toHaveLength(0);
  expect(hooks.received).toHaveLength(2);
});

test("an admin's decision on an upgrade request is mailed to the account's owner, escaped", async () => {
  const mail = `upgrade-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const user = visitor(t);
  expect((await signUp(user, mail, PW, 'Climber <b>')).status).toBe(303);
  await confirm(user, mail);
  const id = (await accounts().byEmail(mail))!.id;
  expect((await submit(user, '/account', '/account/upgrade', { plan: 'premium', message: '' })).status).toBe(303);

  const admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
  expect((await submit(admin, '/admin', `/admin/upgrades/${id}/decline`, { reason: 'Tell us <more>' })).status).toBe(303);
  const declined = await box.next(mail, /declined/);
  expect(declined.text).toContain('The administrator wrote: Tell us <more>');
  expect(htmlOf(declined)).toContain('Tell us &lt;more&gt;');
  expect(htmlOf(declined)).toContain('Hello Climber &lt;b&gt;');

  expect((await submit(user, '/account', '/account/upgrade', { plan: 'premium', message: '' })).status).toBe(303);
  expect((await submit(admin, '/admin', `/admin/upgrades/${id}/approve`, {})).status).toBe(303);
  const approved = await box.next(mail, /on Premium now/);
  expect(approved.text).toContain('Your request for the Premium plan was approved');
});

/** Confirms a sign-up's address with the link mailed to it (SMTP is on). */
async function confirm(agent: Agent, mail: string) {
  const link = linkIn(await box.next(mail, /Confirm your email/), '/signup/confirm');
  const page = await agent.get(link);
  const token = new URL(link, 'http://x').searchParams.get('token')!;
  const done = await agent
    .post('/signup/confirm')
    .type('form')
    .send({ csrf: csrfOf(page.text), token, password: PW });
  expect(done.status).toBe(303);
}
