// What hangs on portal accounts, on both engines: sessions, one-time links, invites, keys held for one page,
// the device cookies' secret, upgrade requests, plan changes (one record and one announcement of a billing
// event however many instances handle it at once; changes at once chained, each from the plan the other
// left; a change that fails leaves nothing) and the quota mail's claims.
import type { Request, Response } from 'express';
import { describeEngines, engineTest } from '../helpers/db.js';
import { openDatabase, type Db, type OpenDatabase } from '../../engine/db/open.js';
import { AccountEvents } from '../../engine/access/account-events.js';
import { KeyStore } from '../../engine/access/keystore.js';
import { Sessions } from '../../portal/auth/sessions.js';
import { LinkTokens } from '../../portal/auth/link-tokens.js';
import { Invites } from '../../portal/auth/invites.js';
import { FreshKeys } from '../../portal/keys/fresh-keys.js';
import { DeviceCookies } from '../../portal/auth/device-cookies.js';
import { UpgradeRequests } from '../../portal/accounts/upgrades.js';
import { changePlan, PlanChanges } from '../../portal/accounts/plan-changes.js';
import { mailNotices } from '../../portal/mail/notices.js';
import { Accounts, normalEmail, type Account, type Plan } from '../../portal/accounts/accounts.js';

const tick = () => new Promise((ok) => setTimeout(ok, 5));

function account(over: Partial<Account> = {}): Account {
  return {
    id: `acc_${Math.random().toString(36).slice(2, 10)}`,
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: 'x',
    role: 'user',
    plan: 'free',
    status: 'active',
    createdAt: new Date().toISOString(),
    sessionGen: 0,
    ...over,
  };
}

/** Accounts kept in memory, for what only reads them (sessions, the quota mail): a read takes a turn of the event loop. */
function memoryAccounts(...held: Account[]) {
  const byId = new Map(held.map((a) => [a.id, a]));
  const accounts = {
    async get(id: string) {
      await tick();
      const a = byId.get(id);
      return a && { ...a };
    },
  };
  return { accounts: accounts as unknown as Accounts };
}

type Heard = { accountId: string; data: unknown }[];

/**
 * One instance's accounts, keys and plan changes on `db`: the 'plan.changed' it announces go to `announced`
 * (shared by instances, as webhooks hear them all), the topics its key store announces to `topics`.
 */
function instance(db: Db, announced: Heard = []) {
  const events = new AccountEvents({ warn: () => {} });
  events.on((e) => {
    if (e.type === 'plan.changed') announced.push({ accountId: e.accountId, data: e.data });
  });
  const topics: string[] = [];
  const keys = new KeyStore(db, { announce: async (topic: string) => void topics.push(topic) }, events);
  return { db, keys, accounts: new Accounts(db, keys), planChanges: new PlanChanges(db), announced, topics };
}

/** Writes the account's row and gives it a key whose plan and state follow the account's. */
async function stored(o: ReturnType<typeof instance>, a: Account): Promise<Account> {
  await o.db
    .insertInto('accounts')
    .values({
      id: a.id,
      email: a.email,
      emailKey: `${a.id}.${normalEmail(a.email)}`,
      name: a.name,
      passwordHash: a.passwordHash,
      role: a.role,
      plan: a.plan,
      status: a.status,
      createdAt: a.createdAt,
      lastSignInAt: null,
      quotaAlerts: null,
    })
    .execute();
  await o.keys.issue(a.plan, 'default', a.id);
  await o.accounts.applyKeyPolicy(a);
  return a;
}

const keysOf = async (o: ReturnType<typeof instance>, accountId: string) =>
  (await o.keys.ofAccount(accountId)).map((k) => ({ plan: k.plan, disabled: k.disabled ?? false }));

/** A request carrying `cookie`, and a response that keeps what it was told to set. */
function exchange(cookie?: string) {
  const set: string[] = [];
  const req = { headers: cookie ? { cookie } : {}, secure: false } as unknown as Request;
  const res = { locals: {}, append: (_h: string, v: string) => void set.push(v) } as unknown as Response;
  return { req, res, set };
}

const sessionId = (set: string[]) => /uua_session=([^;]+)/.exec(set.find((c) => c.startsWith('uua_session=')) ?? '')?.[1];

async function load(sessions: Sessions, cookie: string) {
  const x = exchange(cookie);
  await new Promise<void>((ok, fail) => sessions.load()(x.req, x.res, (err?: unknown) => (err instanceof Error ? fail(err) : ok())));
  return x;
}

/** Waits for a background sweep to have run. */
async function until(check: () => Promise<boolean>) {
  const end = Date.now() + 3000;
  while (!(await check()) && Date.now() < end) await tick();
}

const count = async (db: Db, table: 'sessions' | 'linkTokens' | 'invites' | 'freshKeys' | 'claims') =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEngines('account tables', (_engine, open) => {
  engineTest('sessions: kept by hash, renewed, absent once expired, ended by account; expired rows swept', async () => {
    const { db } = await open();
    const a = account();
    await db
      .insertInto('sessions')
      .values({ hash: 'old', csrf: 'c', accountId: null, gen: null, createdAt: 1, seenAt: 1, expiresAt: 2 })
      .execute();
    const sessions = new Sessions(db, memoryAccounts(a).accounts, 'http://localhost');

    const first = exchange();
    await sessions.signIn(first.req, first.res, a);
    const id = sessionId(first.set)!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await until(async () => (await count(db, 'sessions')) === 1);
    expect(await count(db, 'sessions')).toBe(1);

    const back = await load(sessions, `uua_session=${id}`);
    expect(back.res.locals.viewer).toMatchObject({ id: a.id, email: a.email });
    expect(back.res.locals.csrf).toBe(first.res.locals.csrf);

    const row = await db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ accountId: a.id, gen: 0 });
    expect(row.expiresAt).toBe(row.seenAt + 12 * 3600_000);
    await db
      .updateTable('sessions')
      .set({ expiresAt: Date.now() - 1 })
      .execute();
    const expired = await load(sessions, `uua_session=${id}`);
    expect(expired.res.locals.viewer).toBeUndefined();
    expect(expired.set.join()).toContain('Max-Age=0');

    const again = exchange();
    await sessions.signIn(again.req, again.res, a);
    const anon = exchange();
    await sessions.ensure(anon.req, anon.res);
    expect(await count(db, 'sessions')).toBe(2);
    await sessions.forget(a.id);
    expect(await db.selectFrom('sessions').select('accountId').execute()).toEqual([{ accountId: null }]);
  });

  engineTest('one-time links: found by purpose while unexpired, used once, their fields kept', async () => {
    const { db } = await open();
    const links = new LinkTokens(db);
    const { token, expiresAt } = await links.issue({ purpose: 'reset', accountId: 'acc_1', gen: 3, mailed: true });
    expect(await links.find('verify', token)).toBeUndefined();
    const found = (await links.find('reset', token))!;
    expect(found.link).toEqual({ purpose: 'reset', accountId: 'acc_1', gen: 3, mailed: true, expiresAt });
    const change = await links.issue({ purpose: 'email-change', accountId: 'acc_1', from: 'a@x.io', to: 'b@x.io' });
    expect((await links.find('email-change', change.token))!.link).toMatchObject({ from: 'a@x.io', to: 'b@x.io' });
    expect((await links.find('email-change', change.token))!.link.mailed).toBeUndefined();

    expect((await Promise.all([links.use(found), links.use(found), links.use(found)])).filter(Boolean)).toHaveLength(1);
    expect(await links.find('reset', token)).toBeUndefined();

    await db
      .updateTable('linkTokens')
      .set({ expiresAt: Date.now() - 1 })
      .execute();
    expect(await links.find('email-change', change.token)).toBeUndefined();
    // A new link sets off the sweep of expired ones (a fresh instance sweeps at once).
    await new LinkTokens(db).issue({ purpose: 'verify', accountId: 'acc_2' });
    await until(async () => (await count(db, 'linkTokens')) === 1);
    expect(await count(db, 'linkTokens')).toBe(1);
  });

  engineTest('invites: found while open, claimed once, given back, listed newest first, withdrawn by id', async () => {
    const { db } = await open();
    const invites = new Invites(db);
    const one = await invites.create({ days: 1, createdBy: 'adm' });
    await tick();
    const two = await invites.create({ days: 7, plan: 'premium', createdBy: 'adm' });
    expect(await invites.find(two.token)).toEqual(two.invite);
    expect((await invites.list()).map((i) => i.id)).toEqual([two.invite.id, one.invite.id]);

    const claims = await Promise.all([invites.claim(one.invite), invites.claim(one.invite)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await invites.find(one.token)).toBeUndefined();
    await invites.restore(one.invite);
    expect(await invites.find(one.token)).toEqual(one.invite);
    expect(one.invite.plan).toBeUndefined();

    expect(await invites.withdraw(two.invite.id)).toBe(true);
    expect(await invites.withdraw(two.invite.id)).toBe(false);
    await db
      .updateTable('invites')
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect(await invites.find(one.token)).toBeUndefined();
    // Listing sets off the sweep too (a fresh instance sweeps at once).
    expect(await new Invites(db).list()).toEqual([]);
    await until(async () => (await count(db, 'invites')) === 0);
    expect(await count(db, 'invites')).toBe(0);
  });

  engineTest("keys held for one page: taken once, by their account only; the device cookies' secret is one", async () => {
    const { db } = await open();
    const fresh = new FreshKeys(db);
    const ticket = await fresh.hold('acc_1', { key: 'uua_secret', recordId: 'k1' });
    expect(JSON.stringify(await db.selectFrom('freshKeys').selectAll().execute())).not.toContain('uua_secret');
    expect(await fresh.take(ticket, 'acc_2')).toBeUndefined();
    const taken = await Promise.all([fresh.take(ticket, 'acc_1'), fresh.take(ticket, 'acc_1')]);
    expect(taken.filter(Boolean)).toEqual([{ key: 'uua_secret', recordId: 'k1' }]);

    // Two instances making the secret at once agree on one: a proof made by one is valid on the other.
    const [d1, d2] = [new DeviceCookies(db, 'http://localhost'), new DeviceCookies(db, 'http://localhost')];
    const made = exchange();
    const ada = { id: 'acc_ada', email: 'ada@example.com', sessionGen: 0 };
    await Promise.all([d1.issue(made.req, made.res, ada), d2.deviceFor(exchange('uua_device=x').req, ada)]);
    const cookie = made.set[0].split(';')[0];
    expect(await d2.deviceFor(exchange(cookie).req, { ...ada, email: 'Ada@Example.com' })).toBeDefined();
    // Bound to the account: another account of the same address, a new generation or a new address ends it.
    expect(await d2.deviceFor(exchange(cookie).req, { ...ada, id: 'acc_later' })).toBeUndefined();
    expect(await d2.deviceFor(exchange(cookie).req, { ...ada, sessionGen: 1 })).toBeUndefined();
    expect(await d2.deviceFor(exchange(cookie).req, { ...ada, email: 'ada@example.org' })).toBeUndefined();
    expect(await db.selectFrom('secrets').select('name').execute()).toEqual([{ name: 'device-cookie' }]);
  });

  engineTest('upgrade requests: one pending per account, the queue oldest first by pages, one decision wins', async () => {
    const { db } = await open();
    const o = instance(db);
    const a = await stored(o, account());
    const b = await stored(o, account());
    const upgrades = new UpgradeRequests(db, o.accounts, { warn: () => {} });
    const asked = await Promise.all([upgrades.request(a, 'premium', 'please'), upgrades.request(a, 'enterprise', '')]);
    expect(asked.filter((r) => r === 'pending')).toHaveLength(1);
    expect(await upgrades.request(a, 'free', '')).toBe('not-higher');
    await tick();
    await upgrades.request(b, 'enterprise', '');
    const queue = await upgrades.pending();
    expect(queue.map((r) => r.accountId)).toEqual([a.id, b.id]);
    expect(await upgrades.pending(queue[0])).toEqual([queue[1]]);

    const decided = await Promise.all([
      upgrades.decide(a.id, { approve: true, by: 'adm1', actor: 'adm1@example.com' }),
      upgrades.decide(a.id, { approve: false, by: 'adm2', reason: 'no' }),
    ]);
    expect(decided.filter(Boolean)).toHaveLength(1);
    const mine = (await upgrades.of(a.id))!;
    expect(mine.status).not.toBe('pending');
    expect(o.announced).toHaveLength(mine.status === 'approved' ? 1 : 0);
    // An approval is recorded with the move, as the admin's.
    expect((await o.planChanges.of(a.id)).map((c) => `${c.from}>${c.to}:${c.by}:${c.actor}`)).toEqual(
      mine.status === 'approved' ? [`free>${mine.to}:upgrade:adm1@example.com`] : [],
    );
    expect((await upgrades.pending()).map((r) => r.accountId)).toEqual([b.id]);

    // A decided request is replaced by a new one; forgetting drops it.
    expect(await upgrades.request({ ...a, plan: 'free' }, 'premium', '')).toMatchObject({ status: 'pending' });
    await upgrades.forget(a.id);
    expect(await upgrades.of(a.id)).toBeUndefined();
  });

  engineTest(
    'one billing event handled by three instances at once, for 20 accounts: one change, one record, one plan.changed each',
    async () => {
      const first = (await open()) as OpenDatabase & { dataDir: string; url?: string };
      // Three connections to one database (on SQLite, three opens of one file), as three instances have.
      const others = await Promise.all([1, 2].map(() => openDatabase({ dataDir: first.dataDir, databaseUrl: first.url })));
      try {
        const announced: Heard = [];
        const instances = [first, ...others].map((d) => instance(d.db, announced));
        const held = await Promise.all(Array.from({ length: 20 }, () => stored(instances[0], account())));
        for (const o of instances) o.topics.length = 0;
        const cause = { by: 'stripe' as const, event: { id: 'evt_1', type: 'checkout.session.completed' } };
        const after = await Promise.all(held.flatMap((a) => instances.map((o) => changePlan(o, a.id, 'premium', cause))));
        // Each answers with the account moved: the ones that came second find it moved.
        expect(after.map((a) => a?.plan)).toEqual(after.map(() => 'premium'));
        for (const a of held) {
          expect(announced.filter((e) => e.accountId === a.id)).toEqual([{ accountId: a.id, data: { from: 'free', to: 'premium' } }]);
          expect(await instances[1].planChanges.of(a.id)).toEqual([{ at: expect.any(String), from: 'free', to: 'premium', ...cause }]);
          expect(await keysOf(instances[2], a.id)).toEqual([{ plan: 'premium', disabled: false }]);
        }
        // The keys are announced once per account moved, after its commit.
        expect(instances.flatMap((o) => o.topics)).toEqual(held.map(() => 'keys'));

        // The same event again later changes nothing; an admin's change and another event are recorded, newest first.
        const a = held[0];
        announced.length = 0;
        await changePlan(instances[2], a.id, 'premium', cause);
        await changePlan(instances[0], a.id, 'enterprise', { by: 'admin', actor: 'adm@example.com' });
        // Delivered again after the admin's change: applied once already (its record), so not again.
        expect((await changePlan(instances[1], a.id, 'premium', cause))?.plan).toBe('enterprise');
        await changePlan(instances[1], a.id, 'free', { by: 'stripe', event: { id: 'evt_2', type: 'customer.subscription.deleted' } });
        expect((await instances[0].planChanges.of(a.id)).map((c) => `${c.from}>${c.to}:${c.by}`)).toEqual([
          'enterprise>free:stripe',
          'premium>enterprise:admin',
          'free>premium:stripe',
        ]);
        expect(announced.map((e) => e.data)).toEqual([
          { from: 'premium', to: 'enterprise' },
          { from: 'enterprise', to: 'free' },
        ]);
        expect(await keysOf(instances[0], a.id)).toEqual([{ plan: 'free', disabled: true }]);
        expect(await changePlan(instances[0], 'acc_none', 'premium', cause)).toBeUndefined();

        await instances[0].planChanges.forget(a.id);
        expect(await instances[0].planChanges.of(a.id)).toEqual([]);
      } finally {
        await Promise.all(others.map((d) => d.close()));
      }
    },
    60_000,
  );

  engineTest(
    'two admins changing one account at once: two records, the second from the plan the first left',
    async () => {
      const first = (await open()) as OpenDatabase & { dataDir: string; url?: string };
      const other = await openDatabase({ dataDir: first.dataDir, databaseUrl: first.url });
      try {
        const announced: Heard = [];
        const [p, q] = [first, other].map((d) => instance(d.db, announced));
        const held = await Promise.all(Array.from({ length: 10 }, () => stored(p, account({ plan: 'premium' }))));
        await Promise.all(
          held.flatMap((a) => [
            changePlan(p, a.id, 'enterprise', { by: 'admin', actor: 'one@example.com' }),
            changePlan(q, a.id, 'free', { by: 'admin', actor: 'two@example.com' }),
          ]),
        );
        for (const a of held) {
          // Whichever went first, the other moved the account on from the plan it left.
          const changes = await q.planChanges.of(a.id);
          expect(changes).toHaveLength(2);
          const [older, newer] = [changes.find((c) => c.from === 'premium')!, changes.find((c) => c.from !== 'premium')!];
          expect(older).toBeDefined();
          expect(newer).toMatchObject({ from: older.to, to: older.to === 'enterprise' ? 'free' : 'enterprise' });
          // Listed newest first, though both came within a millisecond or so.
          expect(changes).toEqual([newer, older]);
          expect(newer.at > older.at).toBe(true);
          const now = (await p.accounts.get(a.id))!.plan;
          expect(now).toBe(newer.to);
          expect(announced.filter((e) => e.accountId === a.id).map((e) => e.data)).toEqual(
            expect.arrayContaining([
              { from: older.from, to: older.to },
              { from: newer.from, to: newer.to },
            ]),
          );
          expect(await keysOf(p, a.id)).toEqual([{ plan: now, disabled: now === 'free' }]);
        }
        expect(announced).toHaveLength(20);
      } finally {
        await other.close();
      }
    },
    60_000,
  );

  engineTest('changes made within one millisecond, or after the clock went back, are listed in the order they were made', async () => {
    const { db } = await open();
    const changes = new PlanChanges(db);
    const at = new Date().toISOString();
    const before = new Date(Date.parse(at) - 60_000).toISOString();
    const moves: [Plan, Plan][] = [
      ['free', 'premium'],
      ['premium', 'enterprise'],
      ['enterprise', 'free'],
      ['free', 'premium'],
    ];
    for (const id of ['acc_a', 'acc_b', 'acc_c', 'acc_d', 'acc_e']) {
      for (const [i, [from, to]] of moves.entries()) await changes.record(id, { at: i === 3 ? before : at, from, to, by: 'admin' });
      const listed = await changes.of(id);
      expect(listed.map((c) => `${c.from}>${c.to}`)).toEqual(moves.map(([from, to]) => `${from}>${to}`).reverse());
      expect(listed.map((c) => Date.parse(c.at) - Date.parse(at))).toEqual([3, 2, 1, 0]);
    }
  });

  engineTest('a change whose transaction fails midway leaves no record and the plan as it was', async () => {
    const { db } = await open();
    const o = instance(db);
    const a = await stored(o, account());
    o.topics.length = 0;
    const move = o.keys.updateAccount.bind(o.keys);
    o.keys.updateAccount = () => Promise.reject(new Error('down'));
    const cause = { by: 'stripe' as const, event: { id: 'evt_9', type: 'x' } };
    await expect(changePlan(o, a.id, 'premium', cause)).rejects.toThrow('down');
    expect((await o.accounts.get(a.id))!.plan).toBe('free');
    expect(await o.planChanges.of(a.id)).toEqual([]);
    expect(await keysOf(o, a.id)).toEqual([{ plan: 'free', disabled: true }]);
    expect(o.announced).toEqual([]);
    expect(o.topics).toEqual([]);

    // The event, delivered again, is handled afresh.
    o.keys.updateAccount = move;
    expect((await changePlan(o, a.id, 'premium', cause))?.plan).toBe('premium');
    expect(await o.planChanges.of(a.id)).toHaveLength(1);
    expect(await keysOf(o, a.id)).toEqual([{ plan: 'premium', disabled: false }]);
  });

  engineTest('quota mail: one claim per account, kind and window across instances; expired claims swept', async () => {
    const { db } = await open();
    const a = account();
    const mem = memoryAccounts(a);
    const sent: string[] = [];
    const mailer = { send: async (kind: string) => void sent.push(kind) };
    const upgrades = { onDecided: () => {}, onRequested: () => {} };
    const instances = [new AccountEvents({ warn: () => {} }), new AccountEvents({ warn: () => {} })];
    for (const events of instances)
      mailNotices({ events, upgrades: upgrades as never, accounts: mem.accounts, db, mailer: mailer as never });
    await db.insertInto('claims').values({ scope: 'quota-mail', id: 'old', at: 1, expiresAt: 2, note: null }).execute();
    await db.insertInto('claims').values({ scope: 'other', id: 'old', at: 1, expiresAt: 2, note: null }).execute();

    const resetAt = new Date(Date.now() + 3600_000).toISOString();
    const figures = { plan: 'free', limit: 100, used: 80, resetAt };
    for (const events of [...instances, ...instances]) events.emit('quota.warning', a.id, figures);
    await until(async () => sent.length > 0 && (await count(db, 'claims')) === 2);
    await tick();
    expect(sent).toEqual(['quota-warning']);
    const rows = await db.selectFrom('claims').select(['scope', 'id', 'expiresAt']).orderBy('scope').execute();
    expect(rows).toEqual([
      { scope: 'other', id: 'old', expiresAt: 2 },
      { scope: 'quota-mail', id: `${a.id}:quota.warning:${resetAt}`, expiresAt: Date.parse(resetAt) + 86400_000 },
    ]);
  });
});
