// The latency histograms count into plain numbers (engine/infra/tallied-histogram.ts) and must expose what
// prom-client's own Histogram exposes for the same observations.
import client from 'prom-client';
import { TalliedHistogram } from '../../../engine/infra/tallied-histogram.js';

const BUCKETS = [0.005, 0.02, 0.1, 0.5, 2];
// On the bounds, between them, beyond the last, zero.
const seen: [string, number][] = [
  ['tools/ccgen', 0.005],
  ['tools/ccgen', 0.0051],
  ['tools/ccgen', 0],
  ['ai/chat', 2],
  ['ai/chat', 7.5],
  ['tools/ccgen', 0.3],
  ['ai/chat', 0.02],
];

function expositions() {
  const theirs = new client.Registry();
  const ours = new client.Registry();
  const h = new client.Histogram({
    name: 'uua_x_seconds',
    help: 'Latency',
    labelNames: ['endpoint'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const t = new TalliedHistogram('uua_x_seconds', 'Latency', 'endpoint', BUCKETS, ours);
  for (const [endpoint, v] of seen) {
    h.labels(endpoint).observe(v);
    t.labels(endpoint).observe(v);
  }
  return { theirs, ours, t };
}

test("the exposition is prom-client's Histogram's, in text and as JSON", async () => {
  const { theirs, ours } = expositions();
  const text = await ours.metrics();
  expect(text).toBe(await theirs.metrics());
  expect(text).toContain('uua_x_seconds_bucket{le="+Inf",endpoint="ai/chat"} 3');
  expect(text).toContain('uua_x_seconds_bucket{le="0.005",endpoint="tools/ccgen"} 2');
  // prom-client's own carry `exemplar: null` on each bucket; exemplars are not used here.
  const json = async (r: client.Registry) =>
    JSON.parse(JSON.stringify(await r.getMetricsAsJSON(), (k, v: unknown) => (k === 'exemplar' ? undefined : v)));
  expect(await json(ours)).toEqual(await json(theirs));
});

test('a kept series goes on counting after the registry is reset', async () => {
  const { ours, t } = expositions();
  const kept = t.labels('tools/ccgen');
  ours.resetMetrics();
  expect(await ours.metrics()).toContain('uua_x_seconds_count{endpoint="tools/ccgen"} 0');
  kept.observe(1);
  expect(await ours.metrics()).toContain('uua_x_seconds_bucket{le="2",endpoint="tools/ccgen"} 1');
  expect(await ours.metrics()).toContain('uua_x_seconds_sum{endpoint="tools/ccgen"} 1');
});
