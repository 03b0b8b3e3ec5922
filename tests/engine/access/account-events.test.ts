import { describe, expect, it, jest } from '@jest/globals';
import { AccountEvents, type AccountEvent } from '../../../engine/access/account-events.js';
import { KeyStore } from '../../../engine/access/keystore.js';
import { freshDatabase } from '../../helpers/db.js';

describe('account events', () => {
  it('reach every listener, and a failing listener neither stops the others nor the emitter', async () => {
    const warn = jest.fn();
    const events = new AccountEvents({ warn });
    const seen: AccountEvent[] = [];
    events.on(() => {
      throw new Error('sync failure');
    });
    events.on(() => Promise.reject(new Error('async failure')));
    events.on((e) => void seen.push(e));
    events.emit('plan.changed', 'acct1', { from: 'free', to: 'premium' });
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([{ type: 'plan.changed', accountId: 'acct1', at: expect.any(String), data: { from: 'free', to: 'premium' } }]);
    expect(warn.mock.calls.map((c) => (c[0] as { err: string }).err).sort()).toEqual(['async failure', 'sync failure']);
  });

  it('are emitted by the key store for an account’s keys only: created, rotated without grace, revoked', async () => {
    const { db } = await freshDatabase('sqlite');
    const keys = new KeyStore(db, { announce: async () => {} });
    const seen: AccountEvent[] = [];
    keys.events.on((e) => void seen.push(e));
    await keys.issue('premium', 'cli key');
    const { record } = await keys.issue('premium', 'app', 'acct1');
    const fresh = await keys.rotate(record.id, 0);
    await keys.revoke(fresh!.record.id);
    expect(
      seen.map((e) => [e.type, e.accountId, e.type === 'key.revoked' ? e.data.reason : e.type === 'key.created' ? e.data.name : '']),
    ).toEqual([
      ['key.created', 'acct1', 'app'],
      ['key.created', 'acct1', 'app'],
      ['key.revoked', 'acct1', 'rotated'],
      ['key.revoked', 'acct1', 'revoked'],
    ]);
  });
});
