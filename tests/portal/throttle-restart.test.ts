// The sign-in throttle outlives a restart of the embedded default: its counts are kept in the store
// (SQLite under DATA_DIR), so restarting the server does not hand an attacker ten fresh tries.
import { testApp, type TestApp } from '../helpers/app.js';
import { signIn, signUp, visitor } from '../helpers/portal.js';

const PW = 'correct horse battery';
let open: TestApp | undefined;
afterEach(async () => {
  await open?.close();
});

test('ten wrong passwords, a restart, and the eleventh try is still throttled (429)', async () => {
  const first = (open = await testApp({ TRUST_PROXY: 'true' }));
  const victim = 'throttled@example.com';
  expect((await signUp(visitor(first), victim, PW)).status).toBe(303);
  const from = { 'X-Forwarded-For': '203.0.113.66' };
  for (let i = 0; i < 10; i++) expect((await signIn(visitor(first), victim, `wrong-${i}-password`, from)).status).toBe(401);
  await first.close(); // a SIGTERM's close: what the counters hold is written

  const second = (open = await testApp({ TRUST_PROXY: 'true' }, { dataDir: first.dataDir }));
  expect((await signIn(visitor(second), victim, PW, from)).status).toBe(429);
});
