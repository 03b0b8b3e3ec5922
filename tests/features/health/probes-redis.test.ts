// Probes on a schedule, three instances on one Redis and one PostgreSQL: each interval, exactly one instance
// probes (the first to claim the interval's slot), and every instance sees the last probe's outcome.
import crypto from 'node:crypto';
import { onTwoInstances, redisAvailable, testApp, type TestApp } from '../../helpers/app.js';
import { freshPostgresUrl } from '../../helpers/db.js';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';

const ID = 'anime/creature-data';
const INTERVAL_MS = 2000;

test('one probe per interval across three instances; its outcome is seen by all', async () => {
  const redisUrl = await redisAvailable();
  const databaseUrl = await freshPostgresUrl();
  if (!redisUrl || !databaseUrl) return;
  const upstream: FakeUpstream = await fakeUpstream(() => ({ json: { count: 0, results: [] } }));
  const env = {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `test-${crypto.randomUUID()}:`,
    DATABASE_URL: databaseUrl,
    UPSTREAM_POKEAPI_URL: upstream.url,
    PROBE_INTERVAL: `${INTERVAL_MS}ms`,
    PROBE_ENDPOINTS: ID,
  };
  const apps: TestApp[] = [];
  try {
    for (let i = 0; i < 3; i++) apps.push(await testApp(env));
    const from = upstream.calls.length;
    await new Promise((ok) => setTimeout(ok, 3.6 * INTERVAL_MS));
    const probes = upstream.calls.slice(from);
    // Probes ask the example request; nothing else calls this upstream here.
    expect(new Set(probes.map((c) => c.path))).toEqual(new Set(['/pokemon/']));
    const perSlot = new Map<number, number>();
    for (const c of probes) perSlot.set(Math.floor(c.at / INTERVAL_MS), (perSlot.get(Math.floor(c.at / INTERVAL_MS)) ?? 0) + 1);
    expect(perSlot.size).toBeGreaterThanOrEqual(3);
    expect([...perSlot.values()].every((n) => n === 1)).toBe(true);
    for (const a of apps) {
      await a.api.health.monitor.refresh();
      expect(a.api.health.monitor.lastProbe(ID)).toMatchObject({ status: 200, verdict: 'ok', source: 'pokeapi' });
    }
  } finally {
    for (const a of apps) await a.close();
    await upstream.close();
  }
}, 90_000);

test('an incident one instance opens from its probes is the one every instance shows, and another closes it', async () => {
  let down = true;
  const upstream = await fakeUpstream(() => (down ? { status: 500, text: 'down' } : { json: { count: 0, results: [] } }));
  try {
    await onTwoInstances(
      async (x, y) => {
        for (let i = 0; i < 3; i++) await x.api.health.prober.probe(ID);
        await x.api.health.monitor.settled();
        // y has seen no answer of its own: the stored probe (3 failures in a row) is its evidence.
        const seen = await y.api.health.status(true);
        const row = seen.categories.flatMap((c) => c.endpoints).find((e) => e.id === ID)!;
        expect(row).toMatchObject({ state: 'down', lastProbe: { status: 502, code: 'upstream_failed' } });
        expect(seen.incidents.filter((i) => !i.closedAt).map((i) => [i.endpoint, i.state])).toEqual([[ID, 'down']]);

        down = false;
        await y.api.health.prober.probe(ID);
        await y.api.health.prober.probe(ID);
        await y.api.health.monitor.settled();
        const after = await x.api.health.status(true);
        expect(after.incidents).toHaveLength(1);
        expect(after.incidents[0].closedAt).toEqual(expect.any(String));
        expect(after.categories.flatMap((c) => c.endpoints).find((e) => e.id === ID)!.state).toBe('operational');
      },
      { UPSTREAM_POKEAPI_URL: upstream.url },
    );
  } finally {
    await upstream.close();
  }
}, 60_000);
