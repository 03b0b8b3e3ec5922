// PostgreSQL's driver (about 10 MB resident) is imported only by a server that uses PostgreSQL: on SQLite,
// the default, the API and the portal run without ever loading it.
import { jest } from '@jest/globals';

let imported = false;
jest.unstable_mockModule('pg', () => {
  imported = true;
  return { default: {} };
});
const { testApp } = await import('../../helpers/app.js');

test('a server on SQLite serves its pages and API without importing the PostgreSQL driver', async () => {
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
