// Libraries a server may do without are imported only when it needs them: Stripe's SDK (about 17 MB resident)
// by a server that sells plans (STRIPE_SECRET_KEY), PostgreSQL's driver (about 10 MB) by one that uses
// PostgreSQL (DATABASE_URL). Without them the portal, its pages and the API run without ever loading either.
import { jest } from '@jest/globals';

const imported = new Set<string>();
for (const name of ['stripe', 'pg'])
  jest.unstable_mockModule(name, () => {
    imported.add(name);
    return { default: class {} };
  });
const { testApp } = await import('../helpers/app.js');

test('a server on SQLite without billing serves its pages and API without importing Stripe or PostgreSQL', async () => {
  const t = await testApp();
  try {
    const { default: request } = await import('supertest');
    expect((await request(t.app).get('/')).status).toBe(200);
    expect((await request(t.app).get('/api/v1/tools/ccgen?bin=457173').set('X-API-Key', t.key)).status).toBe(200);
    expect([...imported]).toEqual([]);
  } finally {
    await t.close();
  }
});
