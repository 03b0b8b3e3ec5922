// The key store's table on both engines: found by hash, by id, by account (newest first), revoked ones kept
// apart; an account's keys moved in one statement; last uses written in one upsert; erasure; every change
// announced.
import { KeyStore, type LastUse } from '../../../engine/access/keystore.js';
import { describeEngines, engineTest } from '../../helpers/db.js';

describeEngines('key store', (_engine, open) => {
  const storeOn = async () => {
    const { db } = await open();
    const heard: string[] = [];
    const keys = new KeyStore(db, { announce: async (topic: string) => void heard.push(topic) });
    return { db, keys, heard };
  };

  engineTest('a key is found by its hash while live, by its id, and among its account’s keys', async () => {
    const { keys, heard } = await storeOn();
    const { key, record } = await keys.issue('premium', 'app', 'acc_1');
    expect(heard).toEqual(['keys']);
    expect(record.hint).toBe(`${key.slice(0, 8)}…${key.slice(-4)}`);
    expect(await keys.find(record.hash)).toEqual(record);
    expect(await keys.find('0'.repeat(64))).toBeUndefined();
    expect(await keys.get(record.id)).toEqual(record);
    await new Promise((r) => setTimeout(r, 5));
    const second = (await keys.issue('premium', 'ci', 'acc_1')).record;
    await keys.issue('premium', 'other', 'acc_2');
    await keys.issue('enterprise', 'cli');
    expect((await keys.ofAccount('acc_1')).map((k) => k.name)).toEqual(['ci', 'app']);
    expect((await keys.ofAccounts(['acc_1', 'acc_2'])).map((k) => k.name).sort()).toEqual(['app', 'ci', 'other']);
    expect(await keys.list()).toHaveLength(4);

    expect(await keys.revoke(second.id)).toBe(true);
    expect(await keys.revoke(second.id)).toBe(false);
    expect(await keys.find(second.hash)).toBeUndefined();
    expect(await keys.get(second.id)).toBeUndefined();
    expect((await keys.ofAccount('acc_1')).map((k) => k.name)).toEqual(['app']);
    expect((await keys.ofAccount('acc_1', { revoked: true })).map((k) => k.name)).toEqual(['ci', 'app']);
  });

  engineTest('rename, limits, rotation with a grace period; an account’s keys moved and disabled at once', async () => {
    const { keys } = await storeOn();
    const { record } = await keys.issue('premium', 'app', 'acc_1');
    await keys.issue('premium', 'two', 'acc_1');
    await keys.issue('premium', 'elsewhere', 'acc_2');
    expect(await keys.rename(record.id, 'renamed')).toMatchObject({ name: 'renamed' });
    expect(await keys.setLimits(record.id, { cap: 7 })).toMatchObject({ cap: 7 });
    expect(await keys.get(record.id)).toMatchObject({ name: 'renamed', cap: 7 });
    const fresh = (await keys.rotate(record.id, 60_000))!;
    expect(fresh.record).toMatchObject({ name: 'renamed', cap: 7, accountId: 'acc_1' });
    expect(await keys.get(record.id)).toMatchObject({ replacedBy: fresh.record.id, expiresAt: expect.any(String) });

    expect(await keys.updateAccount('acc_1', { plan: 'enterprise', disabled: true })).toBe(3);
    expect((await keys.ofAccount('acc_1')).every((k) => k.plan === 'enterprise' && k.disabled === true)).toBe(true);
    expect(await keys.find(fresh.record.hash)).toBeUndefined(); // disabled
    expect((await keys.ofAccount('acc_2'))[0]).toMatchObject({ plan: 'premium' });
    expect((await keys.ofAccount('acc_2'))[0].disabled).toBeUndefined();
    await keys.updateAccount('acc_1', { disabled: false });
    expect((await keys.find(fresh.record.hash))?.id).toBe(fresh.record.id);
  });

  engineTest('a rotation is one transaction: two at once make one new key, a replaced key is not rotated again', async () => {
    const { keys, heard } = await storeOn();
    const created: string[] = [];
    const revoked: string[] = [];
    keys.events.on((e) => {
      if (e.type === 'key.created') created.push(e.data.keyId);
      if (e.type === 'key.revoked') revoked.push(e.data.keyId);
    });
    const { record } = await keys.issue('premium', 'app', 'acc_1');
    const both = await Promise.all([keys.rotate(record.id, 60_000), keys.rotate(record.id, 60_000)]);
    const made = both.filter((r) => r !== undefined);
    expect(made).toHaveLength(1);
    expect((await keys.ofAccount('acc_1')).map((k) => k.id).sort()).toEqual([record.id, made[0].record.id].sort());
    expect(await keys.rotate(record.id, 60_000)).toBeUndefined();
    expect(created.slice(1)).toEqual([made[0].record.id]);

    // Without grace the old key ends at once, in the same transaction, and its holder hears of both.
    const second = (await keys.rotate(made[0].record.id, 0))!;
    expect(await keys.find(made[0].record.hash)).toBeUndefined();
    expect(await keys.find(second.record.hash)).toMatchObject({ id: second.record.id, name: 'app' });
    expect(revoked).toEqual([made[0].record.id]);
    expect(heard.filter((t) => t === 'keys').length).toBeGreaterThanOrEqual(3);
  });

  engineTest('last uses are upserted in one batch and read by key ids; erasure takes a revoked key and its last use', async () => {
    const { keys } = await storeOn();
    const a = (await keys.issue('premium', 'a', 'acc_1')).record;
    const b = (await keys.issue('premium', 'b', 'acc_1')).record;
    const first = new Map<string, LastUse>([
      [a.id, { at: '2026-01-01T00:00:00.000Z', ip: '10.0.0.1' }],
      [b.id, { at: '2026-01-01T00:00:00.000Z', ip: '' }],
    ]);
    await keys.recordLastUsed(first);
    await keys.recordLastUsed(new Map([[a.id, { at: '2026-01-02T00:00:00.000Z', ip: '10.0.0.2' }]]));
    const used = await keys.lastUsed([a.id, b.id, 'nope']);
    expect(used.get(a.id)).toEqual({ at: '2026-01-02T00:00:00.000Z', ip: '10.0.0.2' });
    expect(used.get(b.id)).toEqual({ at: '2026-01-01T00:00:00.000Z', ip: '' });
    expect(used.has('nope')).toBe(false);
    // Many at once: more than one statement's worth.
    await keys.recordLastUsed(new Map(Array.from({ length: 1200 }, (_, i): [string, LastUse] => [`k${i}`, { at: 'x', ip: 'y' }])));
    expect((await keys.lastUsed(['k0', 'k1199'])).size).toBe(2);

    await keys.erase(a.id); // not revoked: the record stays
    expect(await keys.get(a.id)).toBeDefined();
    await keys.revoke(a.id, 'account-deleted');
    await keys.erase(a.id);
    expect(await keys.ofAccount('acc_1', { revoked: true })).toHaveLength(1);
    expect((await keys.lastUsed([a.id])).size).toBe(0);
  });

  engineTest('an import keeps records already there', async () => {
    const { keys } = await storeOn();
    const { record } = await keys.issue('premium', 'kept', 'acc_1');
    await keys.import([
      { ...record, name: 'overwritten?' },
      { id: 'abcdefabcdef', hash: 'f'.repeat(64), plan: 'enterprise', name: 'old file key', createdAt: '2024-01-01T00:00:00.000Z' },
    ]);
    expect((await keys.get(record.id))!.name).toBe('kept');
    expect(await keys.find('f'.repeat(64))).toMatchObject({ plan: 'enterprise', name: 'old file key' });
  });
});
