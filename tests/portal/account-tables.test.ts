// What hangs on portal accounts, on both engines: sessions, one-time links, invites, keys held for one page,
// the device cookies' secret, upgrade requests, plan changes (one record and one announcement of a billing
// event however many callers handle it at once) and the quota mail's claims.
import type { Request, Response } from 'express';
import { describeEngines, engineTest } from '../helpers/db.js';
import { openDatabase, type Db, type OpenDatabase } from '../../engine/db/open.js';
import { AccountEvents } from '../../engine/access/account-events.js';
import { Sessions } from '../../portal/accounts/sessions.js';
import { LinkTokens } from '../../portal/accounts/link-tokens.js';
import { Invites } from '../../portal/accounts/invites.js';
import { FreshKeys } from '../../portal/accounts/fresh-keys.js';
import { DeviceCookies } from '../../portal/accounts/device-cookies.js';
import { UpgradeRequests } from '../../portal/accounts/upgrades.js';
import { changePlan, PlanChanges } from '../../portal/accounts/plan-changes.js';
import { mailNotices } from '../../portal/mail/notices.js';
import type { Account, Accounts } from '../../portal/accounts/accounts.js';

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

/**
 * Accounts kept in memory, as several instances share them: a read and a write each take a turn of the
 * event loop, so callers at once interleave; a change of plan is announced as Accounts.update does.
 */
function memoryAccounts(...held: Account[]) {
  const byId = new Map(held.map((a) => [a.id, a]));
  const events = new AccountEvents({ warn: () => {} });
  const announced: { accountId: string; data: unknown }[] = [];
  events.on((e) => {
    if (e.type === 'plan.changed') announced.push({ accountId: e.accountId, data: e.data });
  });
  const accounts = {
    async get(id: string) {
      await tick();
      const a = byId.get(id);
      return a && { ...a };
    },
    async update(id: string, change: Partial<Account>) {
      await tick();
      const before = byId.get(id);
      if (!before) return undefined;
      const after = { ...before, ...change };
      byId.set(id, after);
      if (after.plan !== before.plan) events.emit('plan.changed', id, { from: before.plan, to: after.plan });
      return after;
    },
  };
  return { accounts: accounts as unknown as Accounts, events, announced };
}

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
    await Promise.all([d1.issue(made.req, made.res, 'ada@example.com'), d2.deviceFor(exchange('uua_device=x').req, 'x')]);
    const cookie = made.set[0].split(';')[0];
    expect(await d2.deviceFor(exchange(cookie).req, 'Ada@Example.com')).toBeDefined();
    expect(await db.selectFrom('secrets').select('name').execute()).toEqual([{ name: 'device-cookie' }]);
  });

  engineTest('upgrade requests: one pending per account, the queue oldest first by pages, one decision wins', async () => {
    const { db } = await open();
    const a = account();
    const b = account();
    const mem = memoryAccounts(a, b);
    const upgrades = new UpgradeRequests(db, mem.accounts, { warn: () => {} });
    const asked = await Promise.all([upgrades.request(a, 'premium', 'please'), upgrades.request(a, 'enterprise', '')]);
    expect(asked.filter((r) => r === 'pending')).toHaveLength(1);
    expect(await upgrades.request(a, 'free', '')).toBe('not-higher');
    await tick();
    await upgrades.request(b, 'enterprise', '');
    const queue = await upgrades.pending();
    expect(queue.map((r) => r.accountId)).toEqual([a.id, b.id]);
    expect(await upgrades.pending(queue[0])).toEqual([queue[1]]);

    const decided = await Promise.all([
      upgrades.decide(a.id, { approve: true, by: 'adm1' }),
      upgrades.decide(a.id, { approve: false, by: 'adm2', reason: 'no' }),
    ]);
    expect(decided.filter(Boolean)).toHaveLength(1);
    const mine = (await upgrades.of(a.id))!;
    expect(mine.status).not.toBe('pending');
    expect(mem.announced).toHaveLength(mine.status === 'approved' ? 1 : 0);
    expect((await upgrades.pending()).map((r) => r.accountId)).toEqual([b.id]);

    // A decided request is replaced by a new one; forgetting drops it.
    expect(await upgrades.request({ ...a, plan: 'free' }, 'premium', '')).toMatchObject({ status: 'pending' });
    await upgrades.forget(a.id);
    expect(await upgrades.of(a.id)).toBeUndefined();
  });

  engineTest(
    'one billing event handled by three instances at once: one change, one record, one plan.changed',
    async () => {
      const first = (await open()) as OpenDatabase & { dataDir: string; url?: string };
      const others = await Promise.all([1, 2].map(() => openDatabase({ dataDir: first.dataDir, databaseUrl: first.url })));
      try {
        const a = account();
        const mem = memoryAccounts(a);
        const instances = [first, ...others].map((d) => ({ accounts: mem.accounts, planChanges: new PlanChanges(d.db) }));
        const cause = { by: 'stripe' as const, event: { id: 'evt_1', type: 'checkout.session.completed' } };
        const after = await Promise.all(instances.map((o) => changePlan(o, a.id, 'premium', cause)));
        // The one that recorded it answers with the account moved; the others with the account as they found it.
        expect(after.filter((x) => x?.plan === 'premium').length).toBeGreaterThanOrEqual(1);
        expect((await mem.accounts.get(a.id))!.plan).toBe('premium');
        expect(mem.announced).toEqual([{ accountId: a.id, data: { from: 'free', to: 'premium' } }]);
        const changes = await instances[1].planChanges.of(a.id);
        expect(changes).toEqual([{ at: expect.any(String), from: 'free', to: 'premium', ...cause }]);

        // The same event again later changes nothing; an admin's change and another event are recorded, newest first.
        await changePlan(instances[2], a.id, 'premium', cause);
        await changePlan(instances[0], a.id, 'enterprise', { by: 'admin', actor: 'adm@example.com' });
        await changePlan(instances[1], a.id, 'free', { by: 'stripe', event: { id: 'evt_2', type: 'customer.subscription.deleted' } });
        expect((await instances[0].planChanges.of(a.id)).map((c) => `${c.from}>${c.to}:${c.by}`)).toEqual([
          'enterprise>free:stripe',
          'premium>enterprise:admin',
          'free>premium:stripe',
        ]);
        expect(mem.announced).toHaveLength(3);
        expect(await changePlan(instances[0], 'acc_none', 'premium', cause)).toBeUndefined();

        await instances[0].planChanges.forget(a.id);
        expect(await instances[0].planChanges.of(a.id)).toEqual([]);
      } finally {
        await Promise.all(others.map((d) => d.close()));
      }
    },
    30_000,
  );

  engineTest('a failed move takes its record back, so the event can be handled again', async () => {
    const { db } = await open();
    const a = account();
    const mem = memoryAccounts(a);
    const planChanges = new PlanChanges(db);
    const failing = { get: (id: string) => mem.accounts.get(id), update: () => Promise.reject(new Error('down')) } as unknown as Accounts;
    const cause = { by: 'stripe' as const, event: { id: 'evt_9', type: 'x' } };
    await expect(changePlan({ accounts: failing, planChanges }, a.id, 'premium', cause)).rejects.toThrow('down');
    expect(await planChanges.of(a.id)).toEqual([]);
    expect((await changePlan({ accounts: mem.accounts, planChanges }, a.id, 'premium', cause))?.plan).toBe('premium');
    expect(await planChanges.of(a.id)).toHaveLength(1);
  });

  engineTest('quota mail: one claim per account, kind and window across instances; expired claims swept', async () => {
    const { db } = await open();
    const a = account();
    const mem = memoryAccounts(a);
    const sent: string[] = [];
    const mailer = { send: async (kind: string) => void sent.push(kind) };
    const upgrades = { onDecided: () => {} };
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
