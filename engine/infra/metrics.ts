// Prometheus metrics at /metrics, for the operator of one instance or of a cluster: requests by endpoint
// and status, by plan, latency; upstream calls, their latency and failures; response-cache hits and misses;
// whether Redis and the object store answer. Every label child is looked up once and kept. A request adds
// 1 to plain numbers (Tally) that are handed to prom-client's counters when /metrics is read: its own
// increment re-hashes the labels on every call (docs/decisions.md). Latencies go to the histograms directly.
import crypto from 'node:crypto';
import client from 'prom-client';

/** Read when /metrics is scraped; absent when the part is not configured (no series then). */
export interface MetricsProbes {
  redisUp?: () => boolean;
  objectStoreUp?: () => boolean;
}

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** The increments of one counter series since the last scrape. */
class Tally {
  n = 0;
  constructor(readonly series: client.Counter.Internal) {}
}

export function createMetrics(probes: MetricsProbes = {}) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const tallies: Tally[] = [];
  const tally = (series: client.Counter.Internal) => {
    const t = new Tally(series);
    tallies.push(t);
    return t;
  };
  // Run by each counter as it is read: whichever comes first hands over every tally.
  const collect = () => {
    for (const t of tallies) {
      if (t.n === 0) continue;
      t.series.inc(t.n);
      t.n = 0;
    }
  };
  const requests = new client.Counter({
    name: 'uua_requests_total',
    help: 'Requests by endpoint and status',
    labelNames: ['endpoint', 'status'],
    registers,
    collect,
  });
  const latency = new client.Histogram({
    name: 'uua_request_seconds',
    help: 'Request latency by endpoint',
    labelNames: ['endpoint'],
    buckets: [0.005, 0.02, 0.1, 0.5, 2, 10, 60],
    registers,
  });
  const byPlan = new client.Counter({
    name: 'uua_plan_requests_total',
    help: 'API requests by plan of the key (none: missing or invalid key) and status class',
    labelNames: ['plan', 'class'],
    registers,
    collect,
  });
  const upstreamCalls = new client.Counter({
    name: 'uua_upstream_requests_total',
    help: 'Upstream calls by upstream and outcome (ok, or the error code answered)',
    labelNames: ['upstream', 'outcome'],
    registers,
    collect,
  });
  const upstreamLatency = new client.Histogram({
    name: 'uua_upstream_seconds',
    help: 'Upstream call latency, retries included',
    labelNames: ['upstream'],
    buckets: [0.05, 0.2, 0.5, 1, 2, 5, 15, 60],
    registers,
  });
  const cacheLookups = new client.Counter({
    name: 'uua_cache_requests_total',
    help: 'Response-cache look-ups by result (hit ratio: hit / (hit + miss))',
    labelNames: ['result'],
    registers,
    collect,
  });
  const cacheHit = tally(cacheLookups.labels('hit'));
  const cacheMiss = tally(cacheLookups.labels('miss'));
  if (probes.redisUp) {
    const up = probes.redisUp;
    new client.Gauge({
      name: 'uua_redis_up',
      help: '1 while the Redis client is connected and ready',
      registers,
      collect() {
        this.set(up() ? 1 : 0);
      },
    });
  }
  if (probes.objectStoreUp) {
    const up = probes.objectStoreUp;
    new client.Gauge({
      name: 'uua_object_store_up',
      help: '1 while the object store of hosted content answered its last call',
      registers,
      collect() {
        this.set(up() ? 1 : 0);
      },
    });
  }

  const endpointChildren = new Map<string, { count: Tally; latency: client.Histogram.Internal<string> }>();
  const planChildren = new Map<string, Tally[]>();
  const upstreamChildren = new Map<string, { latency: client.Histogram.Internal<string>; outcomes: Map<string, Tally> }>();

  return {
    registry,
    /** One answered API request; `plan` undefined when the key was missing or invalid. */
    observe(endpoint: string, status: number, seconds: number, plan: string | undefined) {
      const k = `${endpoint} ${status}`;
      let c = endpointChildren.get(k);
      if (!c) endpointChildren.set(k, (c = { count: tally(requests.labels(endpoint, String(status))), latency: latency.labels(endpoint) }));
      c.count.n++;
      c.latency.observe(seconds);
      const p = plan ?? 'none';
      let byClass = planChildren.get(p);
      if (!byClass) planChildren.set(p, (byClass = CLASSES.map((cls) => tally(byPlan.labels(p, cls)))));
      byClass[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1].n++;
    },
    /** One upstream call (createUpstreams' `observe`: handed over on its own, so an arrow function). */
    upstream: (upstreamId: string, outcome: string, seconds: number) => {
      let u = upstreamChildren.get(upstreamId);
      if (!u) upstreamChildren.set(upstreamId, (u = { latency: upstreamLatency.labels(upstreamId), outcomes: new Map() }));
      let c = u.outcomes.get(outcome);
      if (!c) u.outcomes.set(outcome, (c = tally(upstreamCalls.labels(upstreamId, outcome))));
      c.n++;
      u.latency.observe(seconds);
    },
    /** One response-cache look-up (the cached step's `lookedUp`: handed over on its own, so an arrow function). */
    cache: (hit: boolean) => {
      (hit ? cacheHit : cacheMiss).n++;
    },
  };
}

/**
 * Whether a request may read /metrics: always when no METRICS_TOKEN is set, otherwise only with
 * `Authorization: Bearer <token>`. Compared as SHA-256 digests, in constant time.
 */
export function metricsAccess(token: string | undefined, authorization: string | undefined): 'ok' | 'missing' | 'wrong' {
  if (!token) return 'ok';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return 'missing';
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(m[1]), digest(token)) ? 'ok' : 'wrong';
}
