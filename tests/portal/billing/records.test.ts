// What billing keeps in the store (portal/billing/records.ts): an event is claimed by one handler at a time,
// done once, and given back when its handling failed; a claim left by an instance that died is taken up
// again after five minutes. The customer index follows the records, and an account's deletion forgets both.
import { jest } from '@jest/globals';
import { openSqlite } from '../../../engine/store/index.js';
import { BillingRecords } from '../../../portal/billing/records.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const dir = tmpDirs('uua-billing-');

test('an event: mine, then busy while handled, done once handled; given back, it is mine again', async () => {
  const store = openSqlite(dir());
  const records = new BillingRecords(store);
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
  } finally {
    jest.useRealTimers();
    await store.close();
  }
});

test('the customer index follows the records; forgetting an account drops both', async () => {
  const store = openSqlite(dir());
  const records = new BillingRecords(store);
  try {
    await records.put({ accountId: 'acc_1', customerId: 'cus_1', updatedAt: new Date().toISOString() });
    expect(await records.accountOfCustomer('cus_1')).toBe('acc_1');
    expect([...(await records.all()).keys()]).toEqual(['acc_1']);
    await records.forget('acc_1');
    expect(await records.of('acc_1')).toBeUndefined();
    expect(await records.accountOfCustomer('cus_1')).toBeUndefined();
  } finally {
    await store.close();
  }
});
