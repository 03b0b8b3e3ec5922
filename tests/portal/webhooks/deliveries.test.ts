// Webhook deliveries end to end (portal/webhooks/deliveries.ts): account events reach a loopback receiver
// that checks every request with the `standardwebhooks` package; a 500 is retried under the same
// webhook-id, so is an answer that does not come in time; the attempts run out; 410 Gone stops the
// webhook; a rolled secret signs beside the new one; the page lists each attempt with its answer, escaped.
// The queue outlives a restart on the same DATA_DIR; on both engines, one worker of several (each with its
// own connection) sends each attempt, a claim left by a dead instance is taken over, and with private fetch
// off a loopback URL is never reached.
import crypto from 'node:crypto';
import http from 'node:http';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import { appForTests, testApp, type TestApp } from '../../helpers/app.js';
import { csrfOf, signUp, visitor, type Agent } from '../../helpers/portal.js';
import { webhookReceiver, type Receiver, type Script } from '../../helpers/webhook-receiver.js';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { Accounts } from '../../../portal/accounts/accounts.js';
import { Deliveries, QUEUE_CAP, type DeliveryOptions } from '../../../portal/webhooks/deliveries.js';
import { WebhookSettingsStore } from '../../../portal/webhooks/settings.js';
import { secretText } from '../../../portal/webhooks/signing.js';
import { AccountEvents, type AccountEvent } from '../../../engine/access/account-events.js';
import { openDatabase, type Db, type OpenDatabase } from '../../../engine/db/open.js';
import { eventually } from '../../helpers/eventually.js';

const PW = 'correct horse battery';
const PAGE = '/dashboard/webhooks';
const ALL = ['quota.warning', 'quota.exhausted', 'key.created', 'key.revoked', 'plan.changed'];
const QUOTA = { plan: 'premium', limit: 10, used: 8, resetAt: '2030-01-01T00:00:00.000Z' };

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));
async function receiver(script?: Script): Promise<Receiver> {
  const r = await webhookReceiver(script);
  receivers.push(r);
  return r;
}
/** A server that takes every request and never answers: how many of its connections are open. */
async function tarpitServer(): Promise<{ url: string; open(): number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(() => {});
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/hook`,
    open: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

const statuses =
  (...list: number[]): Script =>
  (n) => ({ status: list[Math.min(n, list.length - 1)], body: `answer ${n}` });

/** A signed-in account of `app` whose webhook points at `r` (its secret handed to the receiver). */
async function hooked(app: TestApp, r: Receiver, events = ALL): Promise<{ agent: Agent; id: string }> {
  const agent = visitor(app);
  const email = `wh-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const id = (await new Accounts(app.api.database.db, app.api.keys).byEmail(email))!.id;
  const form = new URLSearchParams({ csrf: csrfOf((await agent.get(PAGE)).text), url: r.url });
  for (const e of events) form.append('events', e);
  expect((await agent.post(PAGE).type('form').send(form.toString())).status).toBe(303);
  r.secret = /<code id="webhook-secret">(whsec_[^<]+)<\/code>/.exec((await agent.get(PAGE)).text)![1];
  return { agent, id };
}

/** The deliveries queued (for one account). */
function queued(db: Db, accountId?: string) {
  let q = db.selectFrom('webhookDeliveries').selectAll();
  if (accountId) q = q.where('accountId', '=', accountId);
  return q.execute();
}

const payloadOf = (r: Receiver, i: number) => JSON.parse(r.received[i].body) as { type: string; timestamp: string; data: unknown };

describe('through the app', () => {
  const t = appForTests({ WEBHOOK_RETRY_DELAYS: '100ms,200ms', WEBHOOK_TIMEOUT: '400ms' });

  test('a 500 is retried under the same webhook-id; both requests verify; the page shows each attempt and its answer', async () => {
    const r = await receiver((n) => (n === 0 ? { status: 500, body: '<b>down</b> for maintenance' } : { status: 200, body: 'thanks' }));
    const { agent, id } = await hooked(t, r);
    t.api.keys.events.emit('quota.warning', id, QUOTA);
    const [first, second] = await r.waitFor(2);
    expect(first.error).toBeUndefined();
    expect(second.error).toBeUndefined();
    expect(first.headers['webhook-id']).toMatch(/^msg_/);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(first.headers['content-type']).toBe('application/json');
    expect(payloadOf(r, 0)).toEqual({ type: 'quota.warning', timestamp: expect.any(String), data: QUOTA });
    expect(first.verified).toEqual(payloadOf(r, 0));

    const page = await eventually(async () => {
      const p = await agent.get(PAGE);
      return p.text.includes('Delivered') && p.text;
    });
    const rows = [...page.matchAll(/<tr><td><time[^]*?<\/tr>/g)].map((m) => m[0]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('2 of 3');
    expect(rows[0]).toContain('<span class="status s2xx">200</span>');
    expect(rows[0]).toContain('<code>thanks</code>');
    expect(rows[1]).toContain('1 of 3');
    expect(rows[1]).toContain('<span class="status s5xx">500</span>');
    expect(rows[1]).toContain('&lt;b&gt;down&lt;/b&gt; for maintenance');
    expect(rows[1]).toContain('Retry');
    expect(rows[1]).toContain(String(first.headers['webhook-id']));
  });

  test('only the chosen events are sent, by the real emitters: a key made and a plan changed', async () => {
    const r = await receiver();
    const { id } = await hooked(t, r, ['key.created']);
    await new Accounts(t.api.database.db, t.api.keys).update(id, { plan: 'premium' }); // plan.changed: not chosen
    await t.api.keys.issue('premium', 'billing server', id);
    await r.waitFor(1);
    await new Promise((ok) => setTimeout(ok, 300));
    expect(r.received.map((_, i) => payloadOf(r, i).type)).toEqual(['key.created']);
    expect(payloadOf(r, 0).data).toMatchObject({ name: 'billing server', plan: 'premium' });
    expect(r.received[0].error).toBeUndefined();
  });

  test('no answer in time is a failed attempt too; after the last attempt it gives up', async () => {
    const r = await receiver((n) => (n === 0 ? 'hang' : { status: 503, body: 'busy' }));
    const { agent, id } = await hooked(t, r);
    t.api.keys.events.emit('quota.exhausted', id, { ...QUOTA, used: 10 });
    const all = await r.waitFor(3);
    expect(new Set(all.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect(all.every((x) => x.error === undefined)).toBe(true);
    const page = await eventually(async () => {
      const p = await agent.get(PAGE);
      return p.text.includes('Gave up') && p.text;
    });
    expect(page).toContain('no answer within 400 ms');
    expect(page).toContain('3 of 3');
    await new Promise((ok) => setTimeout(ok, 400));
    expect(r.received).toHaveLength(3);
    expect(await queued(t.api.database.db, id)).toEqual([]);
  });

  test('410 Gone stops the webhook: no retry, no further event, until its owner saves it again', async () => {
    const r = await receiver(statuses(410, 200));
    const { agent, id } = await hooked(t, r);
    t.api.keys.events.emit('plan.changed', id, { from: 'free', to: 'premium' });
    await r.waitFor(1);
    const page = await eventually(async () => {
      const p = await agent.get(PAGE);
      return p.text.includes('Deliveries are stopped') && p.text;
    });
    expect(page).toContain('Stopped (410 Gone)');
    t.api.keys.events.emit('plan.changed', id, { from: 'premium', to: 'free' });
    await new Promise((ok) => setTimeout(ok, 300));
    expect(r.received).toHaveLength(1);
    const csrf = csrfOf(page);
    expect((await agent.post(`${PAGE}/test`).type('form').send({ csrf })).status).toBe(409);
    const form = new URLSearchParams({ csrf, url: r.url });
    for (const e of ALL) form.append('events', e);
    expect((await agent.post(PAGE).type('form').send(form.toString())).status).toBe(303);
    t.api.keys.events.emit('plan.changed', id, { from: 'free', to: 'enterprise' });
    await r.waitFor(2);
    expect(payloadOf(r, 1).data).toEqual({ from: 'free', to: 'enterprise' });
  });

  test('"send a test event" sends webhook.test; after a roll, both the new and the old secret verify it', async () => {
    const r = await receiver();
    const { agent } = await hooked(t, r);
    const old = r.secret;
    const csrf = csrfOf((await agent.get(PAGE)).text);
    expect((await agent.post(`${PAGE}/secret`).type('form').send({ csrf })).status).toBe(303);
    const fresh = /<code id="webhook-secret">(whsec_[^<]+)<\/code>/.exec((await agent.get(PAGE)).text)![1];
    expect(fresh).not.toBe(old);
    r.secret = fresh;
    expect((await agent.post(`${PAGE}/test`).type('form').send({ csrf })).headers.location).toBe(`${PAGE}?done=test`);
    const [got] = await r.waitFor(1);
    expect(got.error).toBeUndefined();
    expect(payloadOf(r, 0)).toMatchObject({ type: 'webhook.test', data: { message: expect.stringContaining('test event') } });
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(old).verify(got.body, got.headers as Record<string, string>)).toEqual(payloadOf(r, 0));
  });
});

describe('across a restart on the same DATA_DIR', () => {
  const env = { WEBHOOK_RETRY_DELAYS: '1s', WEBHOOK_TIMEOUT: '5s' };

  test('a retry that was pending when the app closed is made by the next start, under the same webhook-id', async () => {
    const r = await receiver(statuses(500, 200));
    const first = await testApp(env);
    let second: TestApp | undefined;
    try {
      const { id } = await hooked(first, r);
      first.api.keys.events.emit('key.revoked', id, { keyId: 'k1', name: 'old', reason: 'revoked' });
      await r.waitFor(1);
      await eventually(async () => (await queued(first.api.database.db, id)).some((d) => d.attempt === 2));
      await first.close();
      expect(r.received).toHaveLength(1);
      second = await testApp(env, { dataDir: first.dataDir });
      const [a, b] = await r.waitFor(2, 5000);
      expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
      expect(b.error).toBeUndefined();
      await eventually(async () => (await queued(second!.api.database.db)).length === 0);
    } finally {
      await second?.close();
    }
  });

  test('an attempt in flight when the app closes is aborted at once and made again by the next start', async () => {
    const r = await receiver((n) => (n === 0 ? 'hang' : { status: 204 }));
    const first = await testApp(env);
    let second: TestApp | undefined;
    try {
      const { id } = await hooked(first, r);
      first.api.keys.events.emit('quota.warning', id, QUOTA);
      await r.waitFor(1);
      const started = Date.now();
      await first.close();
      expect(Date.now() - started).toBeLessThan(2000); // not the 5 s the attempt may take
      expect(r.received).toHaveLength(1);
      second = await testApp(env, { dataDir: first.dataDir });
      const [a, b] = await r.waitFor(2, 5000);
      expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
      expect(b.error).toBeUndefined();
    } finally {
      await second?.close();
    }
  });
});

describeEngines('the worker', (_engine, open) => {
  const quiet = { warn: () => {}, info: () => {} } as unknown as Logger;

  function worker(db: Db, o: Partial<DeliveryOptions> = {}): Deliveries {
    return new Deliveries({
      db,
      settings: new WebhookSettingsStore(db),
      log: quiet,
      retryDelaysMs: [50],
      timeoutMs: 2000,
      allowPrivate: true,
      userAgent: 'test',
      serviceName: 'Test',
      ...o,
    });
  }

  const keyCreated = (accountId: string, i: number): AccountEvent => ({
    type: 'key.created',
    accountId,
    at: new Date().toISOString(),
    data: { keyId: `key_${i}`, name: `key ${i}`, plan: 'premium' },
  });

  async function setUp(db: Db, r: Receiver, accountId: string) {
    const s = await new WebhookSettingsStore(db).save(accountId, { url: r.url, events: ['key.created'] });
    r.secret = secretText(s.secret);
  }

  /** A second connection to the database `open` gave: another instance's. */
  function again(first: OpenDatabase): Promise<OpenDatabase> {
    const { dataDir, url } = first as OpenDatabase & { dataDir: string; url?: string };
    return openDatabase({ dataDir, databaseUrl: url });
  }

  engineTest('two workers, each on its own connection, send each delivery once', async () => {
    const one = await open();
    const two = await again(one);
    const r = await receiver();
    await setUp(one.db, r, 'acct-one-sender');
    const a = worker(one.db);
    const b = worker(two.db);
    try {
      for (let i = 0; i < 6; i++) await a.enqueue(keyCreated('acct-one-sender', i));
      b.start(new AccountEvents());
      await r.waitFor(6);
      await new Promise((ok) => setTimeout(ok, 300));
      const ids = r.received.map((x) => x.headers['webhook-id']);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
      expect(r.received.every((x) => x.error === undefined)).toBe(true);
      expect(await queued(one.db)).toEqual([]);
      expect(await b.recent('acct-one-sender')).toHaveLength(6);
    } finally {
      await a.close();
      await b.close();
      await two.close();
    }
  });

  engineTest(
    'fair to every account: one flooding a tarpit holds its own places only; its queue is capped; one test at a time',
    async () => {
      const { db } = await open();
      const tarpit = await tarpitServer();
      const fast = await receiver();
      await new WebhookSettingsStore(db).save('acct-flood', { url: tarpit.url, events: ['key.created'] });
      await setUp(db, fast, 'acct-calm');
      const w = worker(db, { timeoutMs: 30_000, retryDelaysMs: [] });
      try {
        w.start(new AccountEvents());
        for (let i = 0; i < QUEUE_CAP + 5; i++) await w.enqueue(keyCreated('acct-flood', i));
        await eventually(async () => tarpit.open() === 2);
        const asked = Date.now();
        await w.enqueue(keyCreated('acct-calm', 1));
        await fast.waitFor(1);
        expect(Date.now() - asked).toBeLessThan(3000);
        expect(tarpit.open()).toBe(2); // the flooding account's own two places, no more
        expect(await queued(db, 'acct-flood')).toHaveLength(QUEUE_CAP);
        expect((await w.recent('acct-flood'))[0]).toMatchObject({
          outcome: 'failed',
          error: expect.stringContaining(`${QUEUE_CAP} deliveries were waiting`),
        });
        // A test event waits behind the others; a second one is not queued while it does.
        await new WebhookSettingsStore(db).save('acct-tests', { url: tarpit.url, events: ['key.created'] });
        expect(await w.sendTest('acct-tests')).toBe('queued');
        expect(await w.sendTest('acct-tests')).toBe('test-waiting');
        expect(await w.sendTest('acct-flood')).toBe('full');
      } finally {
        await w.close();
        await tarpit.close();
      }
    },
  );

  engineTest('a claim left by an instance that died is taken over; a live one is left alone', async () => {
    const { db } = await open();
    const r = await receiver();
    await setUp(db, r, 'acct-claims');
    const body = JSON.stringify({ type: 'key.created', timestamp: new Date().toISOString(), data: {} });
    const held = (id: string, claimedUntil: number) => ({
      id,
      accountId: 'acct-claims',
      type: 'key.created',
      body,
      attempt: 1,
      dueAt: 0,
      claimedBy: 'another-instance',
      claimedUntil,
    });
    await db
      .insertInto('webhookDeliveries')
      .values([held('msg_dead', Date.now() - 1000), held('msg_live', Date.now() + 60_000)])
      .execute();
    const w = worker(db);
    try {
      w.start(new AccountEvents());
      await r.waitFor(1);
      await new Promise((ok) => setTimeout(ok, 200));
      expect(r.received.map((x) => x.headers['webhook-id'])).toEqual(['msg_dead']);
      expect((await queued(db)).map((d) => [d.id, d.claimedBy])).toEqual([['msg_live', 'another-instance']]);
    } finally {
      await w.close();
    }
  });

  engineTest('with private fetch off, a loopback URL is refused at delivery: the receiver never hears of it', async () => {
    const { db } = await open();
    const r = await receiver();
    await setUp(db, r, 'acct-private');
    const w = worker(db, { allowPrivate: false, retryDelaysMs: [] });
    try {
      await w.sendTest('acct-private');
      const [attempt] = await eventually(async () => {
        const list = await w.recent('acct-private');
        return list.length > 0 && list;
      });
      expect(attempt).toMatchObject({
        attempt: 1,
        attempts: 1,
        outcome: 'failed',
        error: 'the host was not found, is unreachable or is not a public address',
      });
      expect(attempt.status).toBeUndefined();
      expect(r.received).toEqual([]);
      expect(await queued(db)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
