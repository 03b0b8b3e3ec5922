// Two-factor sign-in's tables on both engines: an authenticator app's secret sealed at rest and bound to its
// account, its codes good once per step (two answers racing with one code: one wins), recovery codes used
// once each and replaced by new ones, passkeys listed and removed per account, and the account's reset.
import { describeEngines, engineTest } from '../helpers/db.js';
import { base32Bytes, totpAt } from '../helpers/totp.js';
import { Factors } from '../../portal/two-factor/factors.js';

const site = { publicUrl: 'https://api.example.com', serviceName: 'Utility API' };
const T0 = Date.parse('2031-03-04T05:06:00Z');

describeEngines('two-factor tables', (_engine, open) => {
  engineTest('an authenticator app: sealed, bound to its account, each code once', async () => {
    const { db } = await open();
    let now = T0;
    const factors = new Factors(db, site, () => now);
    const who = { id: 'acc_1', email: 'ada@example.com' };
    expect(await factors.totp.start(who.id)).toBe(true);
    const setup = (await factors.totp.setup(who))!;
    expect(setup.uri).toMatch(/^otpauth:\/\/totp\/Utility%20API:ada%40example\.com\?.*secret=/);
    const key = base32Bytes(setup.secret);
    const row = await db.selectFrom('totpFactors').selectAll().where('accountId', '=', who.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(setup.secret);

    // A sealed secret moved to another account's row does not open there (the account id is bound in).
    await db
      .insertInto('totpFactors')
      .values({ ...row, accountId: 'acc_2' })
      .execute();
    await expect(factors.totp.setup({ id: 'acc_2', email: 'x@example.com' })).rejects.toThrow();

    const code = totpAt(key, now / 1000);
    const [a, b] = await Promise.all([factors.totp.check(who.id, code, true), factors.totp.check(who.id, code, true)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await factors.totp.setup(who)).toBeUndefined(); // confirmed: never shown again
    expect(await factors.totp.start(who.id)).toBe(false); // nor replaced without removing it
    expect(await factors.totp.check(who.id, code)).toBe(false);
    now += 30_000;
    expect(await factors.totp.check(who.id, totpAt(key, now / 1000).replace(/(\d{3})/, '$1 '))).toBe(true);
    expect((await factors.summary(who.id)).totp).toBe(new Date(T0).toISOString());
  });

  engineTest('recovery codes: each once, replaced whole; passkeys per account; a reset removes everything', async () => {
    const { db } = await open();
    const factors = new Factors(db, site);
    const codes = await factors.recovery.renew('acc_1');
    expect(codes).toHaveLength(10);
    expect(await factors.recovery.use('acc_2', codes[0])).toBe(false);
    expect(await factors.recovery.use('acc_1', codes[0].toUpperCase())).toBe(true);
    expect(await factors.recovery.use('acc_1', codes[0])).toBe(false);
    expect(await factors.recovery.left('acc_1')).toBe(9);
    const renewed = await factors.recovery.renew('acc_1');
    expect(await factors.recovery.use('acc_1', codes[1])).toBe(false);
    expect(await factors.recovery.left('acc_1')).toBe(10);

    const passkey = (id: string, accountId: string) => ({
      id,
      accountId,
      publicKey: 'AA',
      counter: 0,
      transports: null,
      name: `key ${id}`,
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    });
    await db
      .insertInto('passkeys')
      .values([passkey('c1', 'acc_1'), passkey('c2', 'acc_1'), passkey('c3', 'acc_2')])
      .execute();
    expect((await factors.passkeys.list('acc_1')).map((p) => p.id)).toEqual(['c1', 'c2']);
    expect(await factors.passkeys.remove('acc_2', 'c1')).toBeUndefined();
    expect(await factors.passkeys.remove('acc_1', 'c1')).toBe('key c1');
    expect(await factors.has('acc_1')).toBe(true);

    const before = await factors.reset('acc_1');
    expect(before.passkeys).toHaveLength(1);
    expect(before.recoveryLeft).toBe(10);
    expect(await factors.summary('acc_1')).toEqual({ passkeys: [], recoveryLeft: 0 });
    expect(await factors.recovery.use('acc_1', renewed[0])).toBe(false);
    expect(await factors.has('acc_2')).toBe(true);
  });
});
