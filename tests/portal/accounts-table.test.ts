// Accounts on both engines: one account per address (case aside), whether made or moved to; pages of the
// admin's list by (created_at, id) with filters and counts; the search by email prefix or a key's id or
// hint; the free accounts' keys moved in two statements; "another active admin" by one bounded query.
import { KeyStore } from '../../engine/access/keystore.js';
import { Accounts, FREE_PERSONAL_PLAN } from '../../portal/accounts/accounts.js';
import { describeEngines, engineTest } from '../helpers/db.js';

const PW = 'correct horse battery';

describeEngines('accounts', (_engine, open) => {
  const accountsOn = async (freePersonalKeys = false) => {
    const { db } = await open();
    const keys = new KeyStore(db, { announce: async () => {} });
    return { db, keys, accounts: new Accounts(db, keys, freePersonalKeys) };
  };

  engineTest('an address belongs to one account: a second sign-up or a move onto it is refused', async () => {
    const { accounts } = await accountsOn();
    const a = (await accounts.create({ email: ' Ann@Example.com ', name: 'Ann', password: PW }))!;
    expect(a).toMatchObject({ email: 'Ann@Example.com', plan: 'free', status: 'active', role: 'user' });
    expect(await accounts.create({ email: 'ann@example.COM', name: 'Copy', password: PW })).toBeUndefined();
    expect((await accounts.byEmail('ANN@example.com'))!.id).toBe(a.id);
    const b = (await accounts.create({ email: 'bob@example.com', name: 'Bob', password: PW }))!;
    expect(await accounts.changeEmail(b.id, 'ANN@example.com')).toBe(false);
    expect((await accounts.get(b.id))!.email).toBe('bob@example.com');
    expect(await accounts.changeEmail(a.id, 'ann2@example.com')).toBe(true);
    expect(await accounts.changeEmail(b.id, 'ann@example.com')).toBe(true);
    expect((await accounts.byEmail('ann@example.com'))!.id).toBe(b.id);
    await accounts.erase((await accounts.get(b.id))!);
    expect(await accounts.create({ email: 'ann@example.com', name: 'Again', password: PW })).toBeDefined();
  });

  engineTest('two sign-ups of one address at once: exactly one wins', async () => {
    const { accounts } = await accountsOn();
    const made = await Promise.all(
      Array.from({ length: 5 }, (_, i) => accounts.create({ email: 'race@example.com', name: `R${i}`, password: PW })),
    );
    expect(made.filter(Boolean)).toHaveLength(1);
  });

  engineTest('updates write the fields given, clear those given as undefined, and carry plan and status to the keys', async () => {
    const { accounts, keys } = await accountsOn();
    const a = (await accounts.create({ email: 'u@example.com', name: 'U', password: PW, unverified: true, plan: 'premium' }))!;
    expect(a.unverified).toBe(true);
    const { record } = await keys.issue('premium', 'k', a.id);
    const after = (await accounts.update(a.id, { unverified: undefined, quotaAlerts: false, plan: 'enterprise' }))!;
    expect(after.unverified).toBeUndefined();
    expect(after.quotaAlerts).toBe(false);
    expect(await accounts.get(a.id)).toEqual(after);
    expect(await keys.get(record.id)).toMatchObject({ plan: 'enterprise' });
    await accounts.update(a.id, { status: 'suspended' });
    expect((await keys.get(record.id))!.disabled).toBe(true);
    expect((await accounts.setPassword(a.id, 'another good password'))!.sessionGen).toBe(1);
  });

  engineTest('pages by (created_at, id): forward and back, filtered, counted', async () => {
    const { accounts, db } = await accountsOn();
    for (let i = 0; i < 23; i++) {
      const mail = `p${String(i).padStart(2, '0')}@example.com`;
      await db
        .insertInto('accounts')
        .values({
          id: `acc_${String(99 - i)}`,
          email: mail,
          emailKey: mail,
          name: 'P',
          passwordHash: 'x',
          role: 'user',
          plan: i % 2 ? 'premium' : 'free',
          status: i % 5 === 0 ? 'pending' : 'active',
          createdAt: `2020-01-0${1 + (i % 4)}T00:00:00.000Z`,
          lastSignInAt: null,
        })
        .execute();
    }
    const seen: string[] = [];
    let page = await accounts.page({ limit: 10 });
    expect(page.prev).toBeUndefined();
    const forward = [page];
    while (page.next) forward.push((page = await accounts.page({ after: page.next, limit: 10 })));
    for (const p of forward) seen.push(...p.accounts.map((a) => a.email));
    expect(forward.map((p) => p.accounts.length)).toEqual([10, 10, 3]);
    expect(new Set(seen).size).toBe(23);
    const order = forward.flatMap((p) => p.accounts.map((a) => `${a.createdAt} ${a.id}`));
    expect(order).toEqual([...order].sort());
    const back = await accounts.page({ before: page.prev, limit: 10 });
    expect(back.accounts).toEqual(forward[1].accounts);
    expect(back.next).toBeDefined();

    expect(await accounts.count()).toBe(23);
    expect(await accounts.count({ plan: 'premium' })).toBe(11);
    expect(await accounts.count({ state: 'pending' })).toBe(5);
    expect(await accounts.count({ plan: 'free', state: 'pending' })).toBe(3);
    expect((await accounts.page({ q: 'P1' })).accounts.map((a) => a.email)).toEqual(
      expect.arrayContaining(Array.from({ length: 10 }, (_, i) => `p1${i}@example.com`)),
    );
    expect(await accounts.count({ q: 'p1' })).toBe(10);
    expect(await accounts.count({ q: 'acc_90' })).toBe(1);
  });

  engineTest(
    'the totals the triggers keep follow every insert, change and deletion, and crossing plan changes do not deadlock',
    async () => {
      const { accounts, db } = await accountsOn();
      const counted = async () => {
        const kept = await db
          .selectFrom('accountCounts')
          .selectAll()
          .where('n', '>', 0)
          .orderBy(['plan', 'status', 'unverified'])
          .execute();
        const real = await db
          .selectFrom('accounts')
          .select(['plan', 'status', 'unverified', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy(['plan', 'status', 'unverified'])
          .orderBy(['plan', 'status', 'unverified'])
          .execute();
        expect(kept.map((r) => ({ ...r, n: Number(r.n) }))).toEqual(real.map((r) => ({ ...r, n: Number(r.n) })));
      };
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const mail = `t${i}@example.com`;
        ids.push(`acc_t${i}`);
        await db
          .insertInto('accounts')
          .values({
            id: `acc_t${i}`,
            email: mail,
            emailKey: mail,
            name: 'T',
            passwordHash: 'x',
            role: 'user',
            plan: 'free',
            status: 'active',
            createdAt: new Date(i).toISOString(),
            lastSignInAt: null,
          })
          .execute();
      }
      await counted();
      expect(await accounts.count()).toBe(12);
      // Crossing changes at once: half move free → premium while the other half move premium → free.
      await db.updateTable('accounts').set({ plan: 'premium' }).where('id', 'in', ids.slice(6)).execute();
      await Promise.all(
        ids.map((id, i) =>
          db.transaction().execute((trx) =>
            trx
              .updateTable('accounts')
              .set({ plan: i < 6 ? 'premium' : 'free' })
              .where('id', '=', id)
              .execute(),
          ),
        ),
      );
      await db.updateTable('accounts').set({ status: 'pending', unverified: 1 }).where('id', 'in', ids.slice(0, 3)).execute();
      await db.updateTable('accounts').set({ name: 'renamed' }).execute();
      await db.deleteFrom('accounts').where('id', 'in', ids.slice(9)).execute();
      await counted();
      expect(await accounts.count()).toBe(9);
      expect(await accounts.count({ plan: 'premium' })).toBe(6);
      expect(await accounts.count({ state: 'pending' })).toBe(3);
      expect(await accounts.count({ state: 'unverified', plan: 'premium' })).toBe(3);
      expect(await accounts.count({ plan: 'enterprise' })).toBe(0);
    },
  );

  engineTest("a key's id or hint finds its holder", async () => {
    const { accounts, keys } = await accountsOn();
    const a = (await accounts.create({ email: 'holder@example.com', name: 'H', password: PW }))!;
    await accounts.create({ email: 'other@example.com', name: 'O', password: PW });
    const { record } = await keys.issue('premium', 'k', a.id);
    for (const q of [record.id.slice(0, 5), record.id, record.hint!.slice(0, 9), record.hint!])
      expect((await accounts.page({ q })).accounts.map((x) => x.id)).toEqual([a.id]);
    expect(await accounts.count({ q: record.id })).toBe(1);
    expect((await accounts.page({ q: 'zzzz' })).accounts).toEqual([]);
  });

  engineTest("free accounts' keys follow FREE_PERSONAL_KEYS; another active admin is found or not", async () => {
    const { accounts, keys, db } = await accountsOn(true);
    const active = (await accounts.create({ email: 'a@example.com', name: 'A', password: PW }))!;
    const pending = (await accounts.create({ email: 'p@example.com', name: 'P', password: PW, status: 'pending' }))!;
    const paid = (await accounts.create({ email: 'x@example.com', name: 'X', password: PW, plan: 'premium' }))!;
    for (const a of [active, pending]) await keys.issue('free', 'k', a.id);
    await keys.issue('premium', 'k', paid.id);
    expect(await accounts.applyFreeKeyPolicy()).toBe(2);
    expect((await keys.ofAccount(active.id))[0]).toMatchObject({ plan: FREE_PERSONAL_PLAN });
    expect((await keys.ofAccount(active.id))[0].disabled).toBeUndefined();
    expect((await keys.ofAccount(pending.id))[0]).toMatchObject({ plan: FREE_PERSONAL_PLAN, disabled: true });
    expect((await keys.ofAccount(paid.id))[0].plan).toBe('premium');
    expect(await accounts.applyFreeKeyPolicy()).toBe(0);
    const off = new Accounts(db, keys, false);
    expect(await off.applyFreeKeyPolicy()).toBe(2);
    expect((await keys.ofAccount(active.id))[0]).toMatchObject({ plan: 'free', disabled: true });

    const admin = (await accounts.create({ email: 'root@example.com', name: 'R', password: PW, role: 'admin' }))!;
    expect(await accounts.otherActiveAdmin(admin.id)).toBe(false);
    const second = (await accounts.create({ email: 'root2@example.com', name: 'R2', password: PW, role: 'admin' }))!;
    expect(await accounts.otherActiveAdmin(admin.id)).toBe(true);
    await accounts.update(second.id, { status: 'suspended' });
    expect(await accounts.otherActiveAdmin(admin.id)).toBe(false);
  });
});
