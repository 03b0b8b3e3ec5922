// Endpoint health's tables on both engines: each endpoint's last probe (an upsert that carries the streaks
// on, even from two instances at once), one open incident per endpoint whichever instance opens it, changes
// and closings that two instances never lose, the 90-day window and its expiry, and the alerts' claims.
import pino from 'pino';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { openDatabase, type OpenDatabase } from '../../../engine/db/open.js';
import { LastProbes } from '../../../features/health/last-probes.js';
import { Incidents } from '../../../features/health/incidents.js';
import { Alerts, type Alert } from '../../../features/health/alerts.js';

const DAY = 86_400_000;
const ID = 'anime/creature-data';

describeEngines('endpoint health tables', (engine, open) => {
  /** The fresh database, and a second connection to it: another instance. */
  const twoInstances = async (): Promise<[OpenDatabase, OpenDatabase]> => {
    const a = (await open()) as OpenDatabase & { dataDir: string; url?: string };
    const b = await openDatabase({ dataDir: a.dataDir, databaseUrl: a.url, migrate: false });
    expect(b.engine).toBe(engine);
    return [a, b];
  };

  engineTest("the last probe is one row per endpoint, its streaks carried on; two instances' probes both count", async () => {
    const [a, b] = await twoInstances();
    try {
      const probes = new LastProbes(a.db);
      const at = new Date().toISOString();
      expect(await probes.record(ID, { at, status: 200, ms: 12, source: 'pokeapi', verdict: 'ok' })).toEqual({
        at,
        status: 200,
        ms: 12,
        source: 'pokeapi',
        verdict: 'ok',
        fails: 0,
        oks: 1,
      });
      expect(await probes.record(ID, { at, status: 200, ms: 9, verdict: 'ok' })).toMatchObject({ fails: 0, oks: 2 });
      expect(await probes.record(ID, { at, status: 502, code: 'upstream_failed', ms: 30, verdict: 'fail' })).toMatchObject({
        fails: 1,
        oks: 0,
      });
      const other = new LastProbes(b.db);
      await Promise.all([
        probes.record(ID, { at, status: 502, ms: 1, verdict: 'fail' }),
        other.record(ID, { at, status: 502, ms: 2, verdict: 'fail' }),
      ]);
      await probes.record('tools/ccgen', { at, status: 200, ms: 1, verdict: 'ok' });
      const all = await other.all();
      expect([...all.keys()].sort()).toEqual([ID, 'tools/ccgen']);
      // No code or source stored: none read back (not null).
      expect(all.get(ID)).toEqual({ at, status: 502, ms: expect.any(Number), verdict: 'fail', fails: 3, oks: 0 });
      expect(await a.db.selectFrom('probes').select('endpoint').execute()).toHaveLength(2);
    } finally {
      await b.close();
    }
  });

  engineTest('two instances that see the trouble at once open one incident, and both states are on it', async () => {
    const [a, b] = await twoInstances();
    try {
      const one = new Incidents(a.db);
      const two = new Incidents(b.db);
      const [x, y] = await Promise.all([one.trouble(ID, 'degraded', 'the last answer failed'), two.trouble(ID, 'down', '3 failed')]);
      expect(x.id).toBe(y.id);
      const open = await one.open();
      expect(open).toHaveLength(1);
      expect(open[0].updates.map((u) => u.state).sort()).toEqual(['degraded', 'down']);
      // Changes from both at once: neither is lost.
      await Promise.all([one.trouble(ID, 'changed', 'a new shape'), two.trouble(ID, 'degraded', 'flapping')]);
      const [now] = await two.open();
      expect(now.id).toBe(x.id);
      expect(now.updates).toHaveLength(4);
      expect(now.state).toBe(now.updates.at(-1)!.state);
      // The same state again notes nothing.
      expect((await one.trouble(ID, now.state, 'again')).updates).toHaveLength(4);
    } finally {
      await b.close();
    }
  });

  engineTest('closing: one instance closes it, the other finds none; the next trouble opens a new one', async () => {
    const [a, b] = await twoInstances();
    try {
      const one = new Incidents(a.db);
      const two = new Incidents(b.db);
      const opened = await one.trouble(ID, 'down', 'down');
      await one.trouble('tools/ccgen', 'degraded', 'slow');
      const closings = await Promise.all([one.resolve(ID, 'good again'), two.resolve(ID, 'good again')]);
      const closed = closings.filter((c) => c !== undefined);
      expect(closed).toHaveLength(1);
      expect(closed[0]).toMatchObject({ id: opened.id, closedAt: expect.any(String) });
      expect(closed[0].updates.at(-1)).toMatchObject({ state: 'operational', note: 'good again' });
      const row = await a.db.selectFrom('incidents').selectAll().where('id', '=', opened.id).executeTakeFirstOrThrow();
      expect(row.closedAt).toBe(closed[0].closedAt);
      expect(await one.resolve(ID, 'again')).toBeUndefined();
      expect((await two.open()).map((i) => i.endpoint)).toEqual(['tools/ccgen']);
      const next = await two.trouble(ID, 'degraded', 'failing again');
      expect(next.id).not.toBe(opened.id);
      expect((await one.list()).map((i) => [i.endpoint, i.closedAt === undefined])).toEqual(
        expect.arrayContaining([
          [ID, true],
          [ID, false],
          ['tools/ccgen', true],
        ]),
      );
    } finally {
      await b.close();
    }
  });

  engineTest('the list: the last 90 days by opening, newest first, and what is still open; expiry drops only old closed ones', async () => {
    const { db } = await open();
    const now = Date.UTC(2030, 5, 1);
    const iso = (ms: number) => new Date(ms).toISOString();
    const row = (id: string, endpoint: string, openedDaysAgo: number, closed: boolean) => ({
      id,
      endpoint,
      state: 'down',
      openedAt: iso(now - openedDaysAgo * DAY),
      closedAt: closed ? iso(now - openedDaysAgo * DAY + 60_000) : null,
      updates: JSON.stringify([{ at: iso(now - openedDaysAgo * DAY), state: 'down', note: '' }]),
    });
    await db
      .insertInto('incidents')
      .values([
        row('old-closed', 'a', 120, true),
        row('old-open', 'b', 100, false),
        row('recent-1', 'a', 10, true),
        // Two opened at the same moment: the id orders them.
        row('recent-2a', 'c', 5, true),
        row('recent-2b', 'c', 5, true),
        row('new-open', 'a', 1, false),
      ])
      .execute();
    const incidents = new Incidents(db);
    expect((await incidents.list(now)).map((i) => i.id)).toEqual(['new-open', 'recent-2b', 'recent-2a', 'recent-1', 'old-open']);
    await incidents.expire(now);
    const left = await db.selectFrom('incidents').select('id').orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual(['new-open', 'old-open', 'recent-1', 'recent-2a', 'recent-2b']);
    // Read back as written: open ones without closedAt, updates parsed.
    const [newest] = await incidents.list(now);
    expect(newest).toEqual({ id: 'new-open', endpoint: 'a', state: 'down', openedAt: iso(now - DAY), updates: [expect.any(Object)] });
  });

  engineTest('claims: one instance raises an episode, the one that releases it raises its end; an expired claim is swept', async () => {
    const [a, b] = await twoInstances();
    try {
      const heard: string[] = [];
      const alerts = (o: OpenDatabase, who: string) => {
        const x = new Alerts({ webhookUrl: undefined, db: o.db, log: pino({ level: 'silent' }), userAgent: 'test', allowPrivate: false });
        x.onAlert((al) => heard.push(`${who} ${al.kind}`));
        return x;
      };
      const one = alerts(a, 'one');
      const two = alerts(b, 'two');
      const alert = (kind: Alert['kind']): Alert => ({ kind, subject: 'pokeapi', title: kind, detail: '', at: new Date().toISOString() });
      one.raise(alert('breaker.open'), { claim: 'pokeapi:open' });
      two.raise(alert('breaker.open'), { claim: 'pokeapi:open' });
      await Promise.all([one.settled(), two.settled()]);
      expect(heard.filter((h) => h.endsWith('breaker.open'))).toHaveLength(1);
      const claims = await a.db.selectFrom('claims').selectAll().execute();
      expect(claims).toEqual([
        { scope: 'health-alert', id: 'pokeapi:open', at: expect.any(Number), expiresAt: expect.any(Number), note: null },
      ]);
      expect(claims[0].expiresAt - claims[0].at).toBe(DAY);

      one.raise(alert('breaker.closed'), { release: 'pokeapi:open' });
      two.raise(alert('breaker.closed'), { release: 'pokeapi:open' });
      await Promise.all([one.settled(), two.settled()]);
      expect(heard.filter((h) => h.endsWith('breaker.closed'))).toHaveLength(1);
      expect(await a.db.selectFrom('claims').selectAll().execute()).toEqual([]);

      // A claim whose end nobody saw, past its expiry, no longer holds; another scope's is not this sweep's.
      const past = Date.now() - 2 * DAY;
      await a.db
        .insertInto('claims')
        .values([
          { scope: 'health-alert', id: 'lost:open', at: past, expiresAt: past + DAY, note: null },
          { scope: 'quota-mail', id: 'acc_1', at: past, expiresAt: past + DAY, note: null },
        ])
        .execute();
      const three = alerts(a, 'three');
      three.raise({ ...alert('breaker.open'), subject: 'lost' }, { claim: 'lost:open' });
      await three.settled();
      expect(heard.at(-1)).toBe('three breaker.open');
      const left = await a.db.selectFrom('claims').select(['scope', 'id', 'expiresAt']).orderBy('scope').execute();
      expect(left.map((c) => [c.scope, c.id, c.expiresAt > Date.now()])).toEqual([
        ['health-alert', 'lost:open', true],
        ['quota-mail', 'acc_1', false],
      ]);
    } finally {
      await b.close();
    }
  });
});
