// The status of an endpoint follows real faults of its upstream: a fake PokéAPI that answers, then fails,
// then recovers, called through the API as a client calls it. The state moves operational → degraded →
// down → operational, one incident opens, is updated and closes, the Atom feed tells it, and /status.json
// has the shape the page reads. Probes run the documented example through the engine, never metered and
// never answered from the cache.
import request from 'supertest';
import { testApp, type TestApp } from '../../helpers/app.js';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import type { StatusDocument, EndpointStatus } from '../../../features/health/status.js';

const ID = 'anime/creature-data';
let mode: 'up' | 'down' | 'moved' = 'up';
let fake: FakeUpstream;
let t: TestApp;

beforeAll(async () => {
  fake = await fakeUpstream((req) =>
    mode === 'down'
      ? { status: 500, json: { detail: 'server error' } }
      : mode === 'moved'
        ? // A parked domain's page where the API was.
          { headers: { 'content-type': 'application/json' }, text: '<html>This domain is for sale</html>' }
        : { json: { id: 1, name: req.path.split('/').filter(Boolean).pop(), count: 1, results: [{ name: 'bulbasaur' }] } },
  );
  t = await testApp({ UPSTREAM_POKEAPI_URL: fake.url });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

// The document as /status.json serves it, built now (the route keeps one a few seconds).
const status = async (): Promise<StatusDocument> => {
  await t.api.health.monitor.settled();
  return JSON.parse(JSON.stringify(await t.api.health.status(true))) as StatusDocument;
};
const endpoint = (doc: StatusDocument, id = ID): EndpointStatus => doc.categories.flatMap((c) => c.endpoints).find((e) => e.id === id)!;
let n = 0;
// A new id each time: the endpoint caches answers for a day, and a cached answer says nothing of the upstream.
const call = () => request(t.app).get(`/api/v1/${ID}`).query({ apikey: t.key, resource: 'pokemon', id: ++n });

test('/status.json: every category and endpoint, its state, 90 daily bars and the incidents', async () => {
  // The service document links it.
  const root = await request(t.app).get('/').set('Accept', 'application/json').expect(200);
  expect(root.body.status).toBe('http://127.0.0.1:3999/status.json');
  const res = await request(t.app).get('/status.json').expect(200);
  expect(res.headers['access-control-allow-origin']).toBe('*');
  const doc = res.body as StatusDocument;
  expect(Object.keys(doc).sort()).toEqual(['categories', 'counts', 'days', 'from', 'generatedAt', 'incidents', 'probeIntervalMs', 'state']);
  expect(doc.probeIntervalMs).toBe(0);
  expect(doc.days).toBe(90);
  expect(doc.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  const all = doc.categories.flatMap((c) => c.endpoints);
  expect(all.length).toBe(t.api.endpoints.length);
  expect(Object.values(doc.counts).reduce((a, b) => a + b, 0)).toBe(all.length);
  for (const e of all) {
    expect(e.daily).toHaveLength(90);
    // Nothing called or probed yet: no endpoint is claimed to be well.
    expect(['no_data', 'not_configured']).toContain(e.state);
  }
  expect(doc.state).toBe('no_data');
  expect(doc.counts).toMatchObject({ operational: 0, degraded: 0, changed: 0, down: 0 });
  // An endpoint answered in process has no provider to wait for; one whose provider insists on a key it
  // was not given here is "not configured", with what to set.
  const embedded = all.find((e) => e.providers.length === 0)!;
  expect(embedded).toMatchObject({ state: 'no_data', provider: 'embedded' });
  const unconfigured = all.find((e) => e.state === 'not_configured');
  expect(unconfigured?.note).toMatch(/UPSTREAM_[A-Z0-9_]+_(KEYS|URL)/);
  expect(endpoint(doc)).toMatchObject({
    state: 'no_data',
    providers: ['pokeapi'],
    uptime: null,
    note: 'Nothing measured it lately: no call and no probe',
  });
});

test('states and the incident follow the upstream going down and coming back', async () => {
  mode = 'up';
  await call().expect(200);
  let doc = await status();
  expect(endpoint(doc)).toMatchObject({ state: 'operational', provider: 'pokeapi', uptime: 100 });
  expect(endpoint(doc).daily.at(-1)).toBe(100);
  expect(endpoint(doc).p50Ms).toEqual(expect.any(Number));

  mode = 'down';
  const failed = await call();
  expect(failed.status).toBe(502);
  doc = await status();
  expect(endpoint(doc)).toMatchObject({ state: 'degraded' });
  expect(endpoint(doc).note).toMatch(/last answer failed \(upstream_failed\)/);
  let open = doc.incidents.filter((i) => i.endpoint === ID && !i.closedAt);
  expect(open).toHaveLength(1);
  expect(open[0].state).toBe('degraded');

  await call().expect(502);
  await call().expect(502);
  doc = await status();
  expect(endpoint(doc).state).toBe('down');
  expect(endpoint(doc).note).toMatch(/3 failed answers in a row/);
  expect(doc.state).toBe('down');
  open = doc.incidents.filter((i) => i.endpoint === ID && !i.closedAt);
  expect(open).toHaveLength(1);
  expect(open[0].updates.map((u) => u.state)).toEqual(['degraded', 'down']);
  expect(endpoint(doc).uptime).toBe(25);

  // One good answer after many failures is not yet a recovery (it could be flapping); two in a row are.
  mode = 'up';
  await call().expect(200);
  doc = await status();
  expect(endpoint(doc)).toMatchObject({ state: 'degraded', note: '3 of the last 5 answers failed' });
  await call().expect(200);
  doc = await status();
  expect(endpoint(doc).state).toBe('operational');
  const mine = doc.incidents.filter((i) => i.endpoint === ID);
  expect(mine).toHaveLength(1);
  expect(mine[0].closedAt).toEqual(expect.any(String));
  expect(mine[0].updates.map((u) => u.state)).toEqual(['degraded', 'down', 'degraded', 'operational']);

  // The feed tells the incident, as Atom.
  const feed = await request(t.app).get('/status/feed.atom').expect(200);
  expect(feed.headers['content-type']).toMatch(/^application\/atom\+xml/);
  expect(feed.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
  expect(feed.text).toContain(`<title type="html"><![CDATA[${ID}: resolved]]></title>`);
  expect(feed.text).toContain(`/status#incident-${mine[0].id}`);
});

test('a cached answer is not counted: it says nothing of the upstream now', async () => {
  mode = 'up';
  const q = { apikey: t.key, resource: 'pokemon', id: 'cached-one' };
  await request(t.app).get(`/api/v1/${ID}`).query(q).expect(200);
  const before = fake.calls.length;
  mode = 'down';
  const again = await request(t.app).get(`/api/v1/${ID}`).query(q).expect(200);
  expect(again.body.metadata.cached).toBe(true);
  expect(fake.calls.length).toBe(before);
  expect(endpoint(await status()).state).toBe('operational');
  mode = 'up';
});

test('a probe runs the documented example through the engine: not metered, not cached, stored for every instance', async () => {
  mode = 'up';
  const usage = () => request(t.app).get('/api/v1/account/usage').query({ apikey: t.key }).expect(200);
  const before = (await usage()).headers['x-ratelimit-remaining'];
  const calls = fake.calls.length;
  const first = await t.api.health.prober.probe(ID);
  const second = await t.api.health.prober.probe(ID);
  // The example request of the OpenAPI document (the first example of `resource`), asked twice: no cache.
  expect(fake.calls.slice(calls).map((c) => c.path)).toEqual(['/pokemon/', '/pokemon/']);
  expect(first).toMatchObject({ status: 200, verdict: 'ok', source: 'pokeapi', fails: 0 });
  expect(second!.ms).toBeGreaterThanOrEqual(0);
  expect((await usage()).headers['x-ratelimit-remaining']).toBe(before);
  const stored = await t.api.database.db.selectFrom('probes').selectAll().where('endpoint', '=', ID).executeTakeFirst();
  expect(stored).toMatchObject({ status: 200, verdict: 'ok', fails: 0, oks: 2 });

  // A failing probe counts as a failure of the endpoint, as real traffic does.
  mode = 'down';
  const failed = await t.api.health.prober.probe(ID);
  expect(failed).toMatchObject({ status: 502, code: 'upstream_failed', verdict: 'fail', fails: 1 });
  const doc = await status();
  expect(endpoint(doc)).toMatchObject({ state: 'degraded', lastProbe: { status: 502, code: 'upstream_failed' } });
  mode = 'up';
  await t.api.health.prober.probe(ID);
  await t.api.health.prober.probe(ID);
  expect(endpoint(await status()).state).toBe('operational');
  // Endpoints without an upstream are never probed.
  const embedded = t.api.endpoints.find((e) => e.upstream === 'embedded')!;
  expect(await t.api.health.prober.probe(embedded.id)).toBeUndefined();
});

test('an upstream whose answer changed shape is named: state "changed", its own incident state', async () => {
  // The upstream now answers a page where its JSON was: the engine says 502 upstream_changed.
  mode = 'moved';
  const moved = await call().expect(502);
  expect(moved.body.code).toBe('upstream_changed');
  let doc = await status();
  expect(endpoint(doc)).toMatchObject({ state: 'changed', note: "The upstream's answer changed shape: the adapter cannot read it" });
  expect(doc.counts.changed).toBe(1);
  expect(doc.incidents.find((i) => i.endpoint === ID && !i.closedAt)?.state).toBe('changed');
  mode = 'up';
  await call().expect(200);
  await call().expect(200);
  doc = await status();
  expect(endpoint(doc).state).toBe('operational');
  expect(doc.incidents.filter((i) => i.endpoint === ID && !i.closedAt)).toEqual([]);
});
