// Prometheus metrics at /metrics: requests by endpoint and status, and latency.
import client from 'prom-client';

export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({ name: 'uua_requests_total', help: 'Requests by endpoint and status', labelNames: ['endpoint', 'status'], registers: [registry] });
  const latency = new client.Histogram({ name: 'uua_request_seconds', help: 'Request latency by endpoint', labelNames: ['endpoint'], buckets: [0.005, 0.02, 0.1, 0.5, 2, 10, 60], registers: [registry] });
  // Label lookups hashed once per endpoint and status, not on every request.
  const cache = new Map<string, { count: client.Counter.Internal; latency: client.Histogram.Internal<string> }>();
  const children = (endpoint: string, status: number) => {
    const k = `${endpoint} ${status}`;
    let c = cache.get(k);
    if (!c) cache.set(k, (c = { count: requests.labels(endpoint, String(status)), latency: latency.labels(endpoint) }));
    return c;
  };
  return {
    registry,
    observe(endpoint: string, status: number, seconds: number) {
      const c = children(endpoint, status);
      c.count.inc();
      c.latency.observe(seconds);
    },
  };
}
