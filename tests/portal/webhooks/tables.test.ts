// What the webhooks keep in their tables (portal/webhooks/), on both engines: the settings (a first save
// makes the secret, a later one keeps it and starts a stopped webhook again, a roll keeps the old secret
// beside the new one), the queue's claims (of workers racing for one attempt, one wins; a lapsed claim is
// taken over, a live one is not; an attempt already made cannot be claimed again), and the attempts log
// (the newest 20 of an account, none older than 30 days, other accounts untouched).
import { describeEngines, engineTest } from '../../helpers/db.js';
import { WebhookSettingsStore } from '../../../portal/webhooks/settings.js';
import { DeliveryQueue, type Delivery } from '../../../portal/webhooks/queue.js';
import { AttemptLog, LOG_CAP, type AttemptRecord } from '../../../portal/webhooks/attempt-log.js';

const delivery = (id: string, dueAt = 0): Delivery => ({ id, accountId: 'acc_1', type: 'key.created', body: '{}', attempt: 1, dueAt });
const LEASE = 60_000;

describeEngines('webhook tables', (_engine, open) => {
  engineTest('settings: a first save makes the secret, a roll keeps the old one beside it, a save starts a stopped webhook', async () => {
    const settings = new WebhookSettingsStore((await open()).db);
    expect(await settings.get('acc_1')).toBeUndefined();
    expect(await settings.roll('acc_1')).toBeUndefined();
    const first = await settings.save('acc_1', { url: 'https://example.com/a', events: ['key.created'] });
    expect(first).toEqual({
      url: 'https://example.com/a',
      events: ['key.created'],
      secret: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: first.createdAt,
    });
    expect(await settings.get('acc_1')).toEqual(first);
    const rolled = (await settings.roll('acc_1'))!;
    expect(rolled.secret).not.toBe(first.secret);
    expect(rolled.previous).toEqual({ secret: first.secret, until: expect.any(String) });
    expect(Date.parse(rolled.previous!.until)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    await settings.stop('acc_1', 'gone');
    expect((await settings.get('acc_1'))!.stopped).toEqual({ at: expect.any(String), reason: 'gone' });
    const again = await settings.save('acc_1', { url: 'https://example.com/b', events: ['key.created', 'key.revoked'] });
    expect(again).toMatchObject({
      url: 'https://example.com/b',
      events: ['key.created', 'key.revoked'],
      secret: rolled.secret,
      previous: rolled.previous,
    });
    expect(again.stopped).toBeUndefined();
    expect(await settings.get('acc_1')).toEqual(again);
    expect(await settings.remove('acc_1')).toBe(true);
    expect(await settings.remove('acc_1')).toBe(false);
    expect(await settings.get('acc_1')).toBeUndefined();
  });

  engineTest('two first saves at once keep one secret, and both are told it', async () => {
    const settings = new WebhookSettingsStore((await open()).db);
    const [a, b] = await Promise.all([
      settings.save('acc_1', { url: 'https://example.com/a', events: ['key.created'] }),
      settings.save('acc_1', { url: 'https://example.com/b', events: ['key.created'] }),
    ]);
    expect(a.secret).toBe(b.secret);
    expect((await settings.get('acc_1'))!.secret).toBe(a.secret);
  });

  engineTest('the queue: only what is due and unheld, the longest waiting first; of claimers racing, one wins', async () => {
    const queue = new DeliveryQueue((await open()).db);
    const now = Date.now();
    await queue.add(delivery('msg_later', now + 10_000));
    await queue.add(delivery('msg_b', now - 100));
    await queue.add(delivery('msg_a', now - 200));
    expect((await queue.due(now, 10)).map((d) => d.id)).toEqual(['msg_a', 'msg_b']);
    expect((await queue.due(now, 1)).map((d) => d.id)).toEqual(['msg_a']);
    expect(await queue.nextDue(now)).toBe(now + 10_000);

    const won = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => queue.claim({ id: 'msg_a', attempt: 1 }, w, now, LEASE)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await queue.due(now, 10)).map((d) => d.id)).toEqual(['msg_b']);
  });

  engineTest('a lapsed claim is taken over, a live one is not; an attempt made since it was read cannot be claimed', async () => {
    const queue = new DeliveryQueue((await open()).db);
    const now = Date.now();
    await queue.add(delivery('msg_1'));
    expect(await queue.claim({ id: 'msg_1', attempt: 1 }, 'dead', now - 2 * LEASE, LEASE)).toBe(true);
    expect(await queue.claim({ id: 'msg_1', attempt: 1 }, 'w2', now, LEASE)).toBe(true);
    expect(await queue.claim({ id: 'msg_1', attempt: 1 }, 'w3', now + 1000, LEASE)).toBe(false);
    // The dead holder's late steps change nothing: the claim is not theirs any more.
    await queue.release('msg_1', 'dead');
    await queue.end('msg_1', 'dead');
    expect(await queue.claim({ id: 'msg_1', attempt: 1 }, 'w3', now + 1000, LEASE)).toBe(false);
    await queue.retryAt('msg_1', 'w2', now + 5000);
    expect(await queue.claim({ id: 'msg_1', attempt: 1 }, 'w3', now + 6000, LEASE)).toBe(false);
    expect(await queue.due(now + 6000, 10)).toEqual([{ ...delivery('msg_1'), attempt: 2, dueAt: now + 5000 }]);
    expect(await queue.claim({ id: 'msg_1', attempt: 2 }, 'w3', now + 6000, LEASE)).toBe(true);
    await queue.release('msg_1', 'w3');
    expect(await queue.due(now + 6000, 10)).toHaveLength(1);
    expect(await queue.claim({ id: 'msg_1', attempt: 2 }, 'w4', now + 6000, LEASE)).toBe(true);
    await queue.end('msg_1', 'w4');
    expect(await queue.due(now + 6000, 10)).toEqual([]);
  });

  engineTest('the attempts log keeps the newest 20 of an account, none older than 30 days, others untouched', async () => {
    const { db } = await open();
    const log = new AttemptLog(db);
    const now = Date.now();
    const attempt = (n: number, at = now): AttemptRecord => ({
      id: `msg_${n}`,
      type: 'key.created',
      attempt: 1,
      attempts: 3,
      at: new Date(at).toISOString(),
      ms: 5,
      outcome: 'delivered',
      status: 200,
    });
    await log.add('acc_old', attempt(0, now - 31 * 86_400_000), now - 31 * 86_400_000);
    await log.add('acc_2', attempt(100));
    for (let n = 1; n <= 25; n++) await log.add('acc_1', attempt(n));
    const recent = await log.recent('acc_1');
    expect(recent.map((r) => r.id)).toEqual(Array.from({ length: LOG_CAP }, (_, i) => `msg_${25 - i}`));
    expect(recent[0]).toEqual(attempt(25));
    const rows = await db.selectFrom('webhookAttempts').select('accountId').where('accountId', '=', 'acc_1').execute();
    expect(rows).toHaveLength(LOG_CAP);
    expect((await log.recent('acc_2')).map((r) => r.id)).toEqual(['msg_100']);
    // Past 30 days an attempt is not shown, and the account's next write drops it.
    expect(await log.recent('acc_old')).toEqual([]);
    await log.add('acc_old', attempt(1));
    expect(await db.selectFrom('webhookAttempts').select('deliveryId').where('accountId', '=', 'acc_old').execute()).toEqual([
      { deliveryId: 'msg_1' },
    ]);
  });
});
