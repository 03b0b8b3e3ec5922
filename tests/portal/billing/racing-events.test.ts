// Billing events racing across instances: three Stripe events for one subscription (the completed Checkout
// and two updates of it), each delivered to another of three instances at the same moment, for 20 accounts
// at once. Changes of one account's plan are serialised (one transaction holding the account) and a
// billing event is recorded once per account: each account ends on its plan with one record of the change
// and one plan.changed heard, whichever instance committed it. Skipped without Redis and PostgreSQL
// outside CI, as tests/helpers/app.ts onTwoInstances is.
import crypto from 'node:crypto';
import { listen, redisAvailable, testApp, type TestApp } from '../../helpers/app.js';
import { freshPostgresUrl } from '../../helpers/db.js';
import { signUp, submit, visitor } from '../../helpers/portal.js';
import { fakeStripe, PLAN_PRICES, PRICES, type FakeStripe, type Delivered } from '../../helpers/fake-stripe.js';
import { Accounts } from '../../../portal/accounts/accounts.js';
import { PlanChanges } from '../../../portal/accounts/plan-changes.js';
import type Stripe from 'stripe';

const ACCOUNTS = 20;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await fakeStripe(PLAN_PRICES);
});
afterAll(async () => {
  await stripe.close();
});

test('3 events for one subscription at 3 instances at once, for 20 accounts: one record and one plan.changed each', async () => {
  const redisUrl = await redisAvailable();
  const databaseUrl = await freshPostgresUrl();
  if (!redisUrl || !databaseUrl) return;
  const env = { REDIS_URL: redisUrl, REDIS_PREFIX: `test-${crypto.randomUUID()}:`, DATABASE_URL: databaseUrl, ...stripe.env(PRICES) };
  const apps: TestApp[] = [];
  for (let i = 0; i < 3; i++) apps.push(await testApp(env));
  const servers = await Promise.all(apps.map((t) => listen(t.app)));
  // plan.changed as each instance hears it: an event is heard where it happened.
  const heard = new Map<string, number>();
  for (const t of apps)
    t.api.keys.events.on((e) => void (e.type === 'plan.changed' && heard.set(e.accountId, (heard.get(e.accountId) ?? 0) + 1)));
  try {
    const accounts = new Accounts(apps[0].api.database.db, apps[0].api.keys);
    const made = await Promise.all(
      Array.from({ length: ACCOUNTS }, async () => {
        const agent = visitor(apps[0]);
        const email = `race-${crypto.randomUUID().slice(0, 8)}@example.com`;
        expect((await signUp(agent, email, 'correct horse battery')).status).toBe(303);
        const checkout = await submit(agent, '/account', '/billing/checkout', { plan: 'premium' });
        expect(checkout.status).toBe(303);
        const completed = stripe.pay(new URL(checkout.headers.location).pathname.split('/').pop()!);
        const sub = (completed.data.object as { subscription: string }).subscription;
        const events = [
          completed,
          stripe.update(sub, { cancel_at_period_end: false }),
          stripe.update(sub, { cancel_at_period_end: false }),
        ];
        return { id: (await accounts.byEmail(email))!.id, events };
      }),
    );

    /** Posts `event` to instance `i` (the double reads its webhook URL as it sends); again on a 409, as Stripe retries. */
    const deliver = async (event: Stripe.Event, i: number): Promise<Delivered> => {
      for (;;) {
        stripe.webhookUrl = `${servers[i].url}/billing/webhook`;
        const res = await stripe.deliver(event);
        if (res.status !== 409) return res;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const answers = await Promise.all(made.flatMap(({ events }) => events.map((e, i) => deliver(e, i))));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);

    const changes = new PlanChanges(apps[0].api.database.db);
    for (const { id } of made) {
      expect((await accounts.get(id))!.plan).toBe('premium');
      const recorded = await changes.of(id);
      expect(recorded.map((c) => `${c.from}>${c.to} by ${c.by}`)).toEqual(['free>premium by stripe']);
    }
    // plan.changed is emitted after the commit; give the listeners their turn.
    await new Promise((r) => setTimeout(r, 200));
    expect(made.map(({ id }) => heard.get(id) ?? 0)).toEqual(made.map(() => 1));
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    for (const t of apps) await t.close();
  }
}, 60_000);
