// Operator alerts reach a webhook receiver on loopback, in a body Slack's and Discord's incoming webhooks
// both take, and the operator's mailbox when SMTP is set: when an upstream's circuit breaker opens and
// closes (told on the app's UpstreamEvents, as the upstream client tells it) and when an endpoint's probe
// fails N times in a row, then recovers. The breaker also moves the endpoint's state and its incident.
import { testApp, type TestApp } from '../../helpers/app.js';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { smtpServer, type Mailbox } from '../../helpers/smtp.js';
import { eventually } from '../../helpers/eventually.js';
import { Alerts } from '../../../features/health/alerts.js';
import { logSink } from '../../helpers/log-sink.js';
import pino from 'pino';

const ID = 'anime/creature-data';
let upstreamDown = false;
let hookFailures = 0;
let upstream: FakeUpstream;
let hook: FakeUpstream;
let mailbox: Mailbox;
let t: TestApp;

beforeAll(async () => {
  upstream = await fakeUpstream(() => (upstreamDown ? { status: 503, text: 'down' } : { json: { count: 0, results: [] } }));
  hook = await fakeUpstream(() => (hookFailures-- > 0 ? { status: 500, text: 'busy' } : { text: 'ok' }));
  mailbox = await smtpServer();
  t = await testApp({
    UPSTREAM_POKEAPI_URL: upstream.url,
    ALERT_WEBHOOK_URL: `${hook.url}/services/T000/B000/XXXX`,
    ALERT_PROBE_FAILURES: '2',
    ALERT_RETRY_DELAYS: '50ms,50ms',
    SMTP_URL: mailbox.url,
    ALERT_EMAIL: 'ops@example.com',
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([upstream.close(), hook.close(), mailbox.close()]);
});

const posted = () => hook.calls.filter((c) => c.method === 'POST').map((c) => c.json() as { text: string; content: string });
const stateOf = async () => {
  await t.api.health.monitor.settled();
  return t.api.health.monitor.judge(ID)!;
};

test('a breaker that opens and closes: one alert each (however often it is told), state and incident follow', async () => {
  const events = t.api.upstreamEvents;
  const at = Date.now();
  events.breaker({ upstream: 'pokeapi', state: 'open', at, retryAt: at + 30_000, cause: 'upstream_failed' });
  // Its half-open tries fail after each cool-down: the same episode, no new alert.
  events.breaker({ upstream: 'pokeapi', state: 'half-open', at: at + 1 });
  events.breaker({ upstream: 'pokeapi', state: 'open', at: at + 2, retryAt: at + 60_000, cause: 'upstream_failed' });
  // Another instance's breaker opening: the operator hears of the episode once (its claim is in the database).
  const other = new Alerts({
    webhookUrl: `${hook.url}/other`,
    db: t.api.database.db,
    log: pino({ level: 'silent' }),
    userAgent: 'x',
    allowPrivate: true,
  });
  other.raise(
    { kind: 'breaker.open', subject: 'pokeapi', title: 'twice', detail: '', at: new Date().toISOString() },
    { claim: 'pokeapi:open' },
  );
  await other.settled();
  await t.api.health.alerts.settled();
  expect(await stateOf()).toMatchObject({ state: 'down', note: expect.stringMatching(/circuit breaker of pokeapi is open/) });
  const [opened, ...more] = posted();
  expect(more).toEqual([]);
  // Slack reads `text`, Discord `content`: the same words in both, and nothing else.
  expect(Object.keys(opened).sort()).toEqual(['content', 'text']);
  expect(opened.text).toBe(opened.content);
  expect(opened.text).toMatch(/^Upstream pokeapi is failing: its circuit breaker opened \(upstream_failed\)\n/);
  expect(opened.text).toContain(`Endpoints affected: ${ID}.`);
  const req = hook.calls[0];
  expect(req.path).toBe('/services/T000/B000/XXXX');
  expect(req.headers['content-type']).toBe('application/json');
  const mail = await mailbox.next('ops@example.com', /circuit breaker opened/);
  expect(mail.text).toContain(`Endpoints affected: ${ID}.`);
  expect(mail.text).toContain('http://127.0.0.1:3999/status');
  const incidents = await t.api.health.monitor.incidents.list();
  expect(incidents.find((i) => i.endpoint === ID && !i.closedAt)?.state).toBe('down');

  events.breaker({ upstream: 'pokeapi', state: 'closed', at: Date.now() });
  await t.api.health.alerts.settled();
  expect((await stateOf()).state).toBe('operational');
  expect(posted()[1].text).toMatch(/^Upstream pokeapi recovered: its circuit breaker closed/);
  await mailbox.next('ops@example.com', /recovered/);
  const closed = (await t.api.health.monitor.incidents.list()).find((i) => i.endpoint === ID);
  expect(closed?.closedAt).toEqual(expect.any(String));
});

test('a probe failing N times in a row raises one alert, and its recovery another; a webhook that fails is tried again', async () => {
  const before = posted().length;
  upstreamDown = true;
  hookFailures = 1;
  expect(await t.api.health.prober.probe(ID)).toMatchObject({ fails: 1, status: 502 });
  await t.api.health.alerts.settled();
  expect(posted().length).toBe(before);
  await t.api.health.prober.probe(ID);
  await t.api.health.prober.probe(ID);
  await t.api.health.alerts.settled();
  // The first POST got a 500, the retry went through; the third failure raised nothing more.
  const after = posted().slice(before);
  expect(after).toHaveLength(2);
  expect(after[0].text).toBe(after[1].text);
  expect(after[0].text).toMatch(new RegExp(`^Probe of ${ID} failed 2 times in a row \\(upstream_failed\\)`));

  upstreamDown = false;
  await t.api.health.prober.probe(ID);
  await t.api.health.alerts.settled();
  const last = posted().at(-1)!;
  expect(last.text).toMatch(new RegExp(`^Probe of ${ID} recovered`));
  expect(last.text).toContain('after 3 failed probes');
  await eventually(async () => mailbox.waiting('ops@example.com').length >= 2);
});

test('the webhook goes through the SSRF guard: a private address is refused unless ALLOW_PRIVATE_FETCH', async () => {
  const { lines, sink } = logSink();
  const before = hook.calls.length;
  const alerts = new Alerts({
    webhookUrl: `${hook.url}/hook`,
    db: t.api.database.db,
    log: pino({ level: 'info' }, sink),
    userAgent: 'test',
    allowPrivate: false,
    retryDelaysMs: [],
  });
  alerts.raise({ kind: 'breaker.open', subject: 'x', title: 'Upstream x is failing', detail: 'd', at: new Date().toISOString() });
  await alerts.settled();
  expect(hook.calls.length).toBe(before);
  await new Promise((ok) => setImmediate(ok));
  const logged = lines.map((l) => JSON.parse(l) as { msg: string; why?: string });
  expect(logged.find((l) => l.msg === 'alert: the webhook did not take it')).toMatchObject({
    why: 'the host was not found, is unreachable or is not a public address',
  });
});
