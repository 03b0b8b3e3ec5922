// A billing-driven plan change on two instances sharing one Redis: Stripe's event reaches one instance, and
// a key the other had just identified (and cached) carries the new plan there within a second, with the
// account's count carried over. Skipped without Redis outside CI (tests/helpers/app.ts onTwoInstances).
import crypto from 'node:crypto';
import request from 'supertest';
import { listen, onTwoInstances } from '../../helpers/app.js';
import { signUp, submit, visitor } from '../../helpers/portal.js';
import { fakeStripe, PLAN_PRICES, PRICES, type FakeStripe } from '../../helpers/fake-stripe.js';
import { Accounts } from '../../../portal/accounts/accounts.js';

let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await fakeStripe(PLAN_PRICES);
});
afterAll(async () => {
  await stripe.close();
});

test('Stripe’s event on one instance: the other answers the same key on Premium within a second, the count carried over', async () => {
  await onTwoInstances(
    async (x, y) => {
      const server = await listen(x.app);
      stripe.webhookUrl = `${server.url}/billing/webhook`;
      try {
        const agent = visitor(x);
        const email = `two-${crypto.randomUUID().slice(0, 8)}@example.com`;
        expect((await signUp(agent, email, 'correct horse battery')).status).toBe(303);
        const account = (await new Accounts(x.api.database.db, x.api.keys).byEmail(email))!;
        const { key } = await x.api.keys.issue('free-personal', 'script', account.id);
        const call = () => request(y.app).get('/api/v1/tools/ccgen?bin=457173').set('X-API-Key', key);
        for (let i = 0; i < 3; i++) expect((await call()).headers['x-ratelimit-limit']).toBe('200');

        const checkout = await submit(agent, '/account', '/billing/checkout', { plan: 'premium' });
        expect(checkout.status).toBe(303);
        const completed = stripe.pay(new URL(checkout.headers.location).pathname.split('/').pop()!);
        const sent = Date.now();
        expect((await stripe.deliver(completed)).body).toEqual({ received: true, outcome: 'handled' });
        let res = await call();
        while (res.headers['x-ratelimit-limit'] !== '5000' && Date.now() - sent < 1000) {
          await new Promise((ok) => setTimeout(ok, 20));
          res = await call();
        }
        expect(res.headers['x-ratelimit-limit']).toBe('5000');
        expect(Date.now() - sent).toBeLessThan(1000);
        // One counter per account, whatever its plan: the calls on Free count on Premium.
        const after = await call();
        expect(Number(after.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(5000 - 5);
        expect((await agent.get('/account')).text).toMatch(/<dt>Subscription<\/dt><dd><span class="badge ok">Active<\/span> Premium/);
      } finally {
        await server.close();
      }
    },
    { ...stripe.env(PRICES), FREE_PERSONAL_KEYS: 'true' },
  );
});
