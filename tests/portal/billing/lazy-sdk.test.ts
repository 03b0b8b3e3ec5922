// Stripe's SDK (about 17 MB resident) is imported only by a server that sells plans: without
// STRIPE_SECRET_KEY the portal, its pages and the API run without ever loading it.
import { jest } from '@jest/globals';

let imported = false;
jest.unstable_mockModule('stripe', () => {
  imported = true;
  return { default: class {} };
});
const { testApp } = await import('../../helpers/app.js');

test('a server without billing serves its pages and API without importing the SDK', async () => {
  const t = await testApp();
  try {
    const { default: request } = await import('supertest');
    expect((await request(t.app).get('/')).status).toBe(200);
    expect((await request(t.app).get('/api/v1/tools/ccgen?bin=457173').set('X-API-Key', t.key)).status).toBe(200);
    expect(imported).toBe(false);
  } finally {
    await t.close();
  }
});
