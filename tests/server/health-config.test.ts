// The settings of probes and operator alerts (server/config.ts, config.health): probes off unless
// PROBE_INTERVAL is set, alerts to ALERT_EMAIL or else ADMIN_EMAIL, and a boot error naming a bad value.
import { loadConfig } from '../../server/config.js';

test('defaults: no probes on a schedule, no webhook, 3 failed probes to alert, mail to the admin', () => {
  expect(loadConfig({}).health).toEqual({
    probeIntervalMs: 0,
    probeEndpoints: [],
    alertWebhookUrl: undefined,
    alertEmail: undefined,
    alertProbeFailures: 3,
    alertRetryDelaysMs: [2000, 10_000],
  });
  expect(loadConfig({ ADMIN_EMAIL: 'root@example.com' }).health.alertEmail).toBe('root@example.com');
  expect(loadConfig({ ADMIN_EMAIL: 'root@example.com', ALERT_EMAIL: 'ops@example.com' }).health.alertEmail).toBe('ops@example.com');
});

test('PROBE_INTERVAL, PROBE_ENDPOINTS, ALERT_WEBHOOK_URL and ALERT_PROBE_FAILURES as given', () => {
  const h = loadConfig({
    PROBE_INTERVAL: '5m',
    PROBE_ENDPOINTS: 'anime/creature-data, tools/cpn',
    ALERT_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/X',
    ALERT_PROBE_FAILURES: '5',
  }).health;
  expect(h).toMatchObject({
    probeIntervalMs: 300_000,
    probeEndpoints: ['anime/creature-data', 'tools/cpn'],
    alertWebhookUrl: 'https://hooks.slack.com/services/T0/B0/X',
    alertProbeFailures: 5,
  });
  expect(loadConfig({ PROBE_INTERVAL: 'off' }).health.probeIntervalMs).toBe(0);
});

test('bad values stop the boot, naming them', () => {
  expect(() => loadConfig({ PROBE_INTERVAL: 'often' })).toThrow('PROBE_INTERVAL must be a duration such as 5s or 500ms, got "often"');
  expect(() => loadConfig({ PROBE_INTERVAL: '200ms' })).toThrow('PROBE_INTERVAL must be at least 1s (or 0 / off), got "200ms"');
  expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'slack' })).toThrow('ALERT_WEBHOOK_URL must be an http(s) URL');
  expect(() => loadConfig({ ALERT_PROBE_FAILURES: '0' })).toThrow('ALERT_PROBE_FAILURES must be at least 1, got "0"');
});
