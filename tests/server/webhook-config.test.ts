// WEBHOOK_RETRY_DELAYS and WEBHOOK_TIMEOUT (server/config.ts): their defaults, a list of durations or none,
// and a boot error that names a bad value.
import { loadConfig } from '../../server/config.js';

test('defaults: attempts after 5 s, 30 s, 2 min and 15 min, each with 15 s to answer', () => {
  expect(loadConfig({}).webhooks).toEqual({ retryDelaysMs: [5000, 30_000, 120_000, 900_000], timeoutMs: 15_000 });
});

test('a list of durations, or none (one attempt only)', () => {
  expect(loadConfig({ WEBHOOK_RETRY_DELAYS: '100ms, 1s,2m', WEBHOOK_TIMEOUT: '30s' }).webhooks).toEqual({
    retryDelaysMs: [100, 1000, 120_000],
    timeoutMs: 30_000,
  });
  expect(loadConfig({ WEBHOOK_RETRY_DELAYS: 'none' }).webhooks.retryDelaysMs).toEqual([]);
});

test.each(['5', '5s,,1m', 'soon'])('WEBHOOK_RETRY_DELAYS=%s stops the boot with the variable named', (value) => {
  expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: value })).toThrow(
    `WEBHOOK_RETRY_DELAYS must be durations separated by commas, such as 5s,30s,2m (or none), got "${value}"`,
  );
  expect(() => loadConfig({ WEBHOOK_TIMEOUT: value })).toThrow('WEBHOOK_TIMEOUT must be a duration');
});
