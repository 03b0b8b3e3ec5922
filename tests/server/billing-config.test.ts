// STRIPE_* read into config.billing (server/config.ts): billing is off without STRIPE_SECRET_KEY, whatever
// else is set; with it, the webhook's secret and at least one plan's price are needed, and STRIPE_API_URL
// becomes the SDK's host, port and protocol. A bad value stops the boot, naming it (never the secret key).
import { loadConfig } from '../../server/config.js';

const on = { STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICE_PREMIUM: 'price_1Pgafm' };
const bootError = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the configuration loaded');
};

test('without STRIPE_SECRET_KEY billing is off, whatever else is set', () => {
  expect(loadConfig({}).billing).toBeUndefined();
  expect(
    loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_PREMIUM: 'price_x', STRIPE_API_URL: 'nonsense' }).billing,
  ).toBeUndefined();
});

test('with it: the prices of the plans sold, and Stripe’s own API unless STRIPE_API_URL says otherwise', () => {
  expect(loadConfig(on).billing).toEqual({
    secretKey: 'sk_test_abc123',
    webhookSecret: 'whsec_abc',
    prices: { premium: 'price_1Pgafm' },
    api: undefined,
  });
  expect(loadConfig({ ...on, STRIPE_PRICE_ENTERPRISE: 'price_2Ent', STRIPE_API_URL: 'http://localhost:12111' }).billing).toMatchObject({
    prices: { premium: 'price_1Pgafm', enterprise: 'price_2Ent' },
    api: { host: 'localhost', port: 12111, protocol: 'http' },
  });
  expect(loadConfig({ ...on, STRIPE_API_URL: 'https://[::1]' }).billing!.api).toEqual({ host: '::1', port: 443, protocol: 'https' });
});

test('a bad or missing STRIPE_* value stops the boot, naming it', () => {
  const secret = bootError({ ...on, STRIPE_SECRET_KEY: 'pk_test_publishable' });
  expect(secret).toBe('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… or rk_…)');
  expect(secret).not.toContain('pk_test_publishable');
  expect(bootError({ ...on, STRIPE_WEBHOOK_SECRET: '' })).toMatch(/^STRIPE_WEBHOOK_SECRET is needed with STRIPE_SECRET_KEY/);
  expect(bootError({ ...on, STRIPE_PRICE_PREMIUM: '' })).toMatch(/^STRIPE_PRICE_PREMIUM or STRIPE_PRICE_ENTERPRISE is needed/);
  expect(bootError({ ...on, STRIPE_PRICE_PREMIUM: 'prod_123' })).toBe(
    'STRIPE_PRICE_PREMIUM must be a Stripe price id (price_…), got "prod_123"',
  );
  expect(bootError({ ...on, STRIPE_PRICE_ENTERPRISE: 'price_1Pgafm' })).toBe(
    'STRIPE_PRICE_PREMIUM and STRIPE_PRICE_ENTERPRISE must differ',
  );
  expect(bootError({ ...on, STRIPE_API_URL: 'localhost:12111' })).toMatch(
    /^STRIPE_API_URL must be http\(s\):\/\/host\[:port\] with no path/,
  );
  expect(bootError({ ...on, STRIPE_API_URL: 'http://localhost:12111/v1' })).toMatch(/^STRIPE_API_URL must be/);
});
