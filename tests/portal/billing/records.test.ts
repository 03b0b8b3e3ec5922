// What billing keeps in its tables (portal/billing/records.ts), on both engines: an event is claimed by one
// handler at a time (of claimers racing, one wins), done once, and given back when its handling failed; a
// claim left by an instance that died is taken up again after five minutes. The customer index follows the
// records, records read back as written, the admins' list reads only the accounts asked for, and an
// account's deletion forgets both.
import { jest } from '@jest/globals';
import { BillingRecords, type BillingRecord } from '../../../portal/billing/records.js';
import { describeEngines, engineTest } from '../../helpers/db.js';

describeEngines('billing records', (_engine, open) => {
  engineTest('an event: mine, then busy while handled, done once handled; given back, it is mine again', async () => {
    const records = new BillingRecords((await open()).db);
    try {
      expect(await records.claim('evt_1', 'invoice.paid')).toBe('mine');
      expect(await records.claim('evt_1', 'invoice.paid')).toBe('busy');
      await records.release('evt_1');
      expect(await records.claim('evt_1', 'invoice.paid')).toBe('mine');
      await records.handled('evt_1', 'invoice.paid');
      expect(await records.claim('evt_1', 'invoice.paid')).toBe('done');
      // A claim whose instance died: Stripe's next delivery after five minutes takes it.
      expect(await records.claim('evt_2', 'invoice.paid')).toBe('mine');
      jest.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1000, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval'] });
      expect(await records.claim('evt_2', 'invoice.paid')).toBe('mine');
      expect(await records.claim('evt_2', 'invoice.paid')).toBe('busy');
    } finally {
      jest.useRealTimers();
    }
  });

  engineTest('claimers racing for one event: one has it, the others are told it is busy; a stale claim goes to one', async () => {
    const records = new BillingRecords((await open()).db);
    const race = () => Promise.all(Array.from({ length: 6 }, () => records.claim('evt_race', 'invoice.paid')));
    expect((await race()).sort()).toEqual(['busy', 'busy', 'busy', 'busy', 'busy', 'mine']);
    try {
      jest.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1000, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval'] });
      expect((await race()).sort()).toEqual(['busy', 'busy', 'busy', 'busy', 'busy', 'mine']);
    } finally {
      jest.useRealTimers();
    }
  });

  engineTest('the customer index follows the records; forgetting an account drops both', async () => {
    const records = new BillingRecords((await open()).db);
    await records.put({ accountId: 'acc_1', customerId: 'cus_1', updatedAt: new Date().toISOString() });
    await records.put({ accountId: 'acc_2', customerId: 'cus_2', updatedAt: new Date().toISOString() });
    expect(await records.accountOfCustomer('cus_1')).toBe('acc_1');
    expect([...(await records.forAccounts(['acc_1', 'acc_3'])).keys()]).toEqual(['acc_1']);
    expect((await records.forAccounts([])).size).toBe(0);
    await records.forget('acc_1');
    expect(await records.of('acc_1')).toBeUndefined();
    expect(await records.accountOfCustomer('cus_1')).toBeUndefined();
    expect(await records.accountOfCustomer('cus_2')).toBe('acc_2');
  });

  engineTest('a record reads back as written; a field cleared by the next write is gone', async () => {
    const records = new BillingRecords((await open()).db);
    const full: BillingRecord = {
      accountId: 'acc_1',
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
      status: 'active',
      priceId: 'price_1',
      plan: 'premium',
      periodStart: '2026-01-01T00:00:00.000Z',
      periodEnd: '2026-02-01T00:00:00.000Z',
      nextInvoiceAt: '2026-02-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      lastEvent: { id: 'evt_1', type: 'customer.subscription.created' },
    };
    await records.put(full);
    expect(await records.of('acc_1')).toEqual(full);
    const { nextInvoiceAt: _, ...ending } = { ...full, cancelAt: '2026-02-01T00:00:00.000Z' };
    await records.put(ending);
    expect(await records.of('acc_1')).toEqual(ending);
    expect((await records.forAccounts(['acc_1'])).get('acc_1')).toEqual(ending);
  });
});
