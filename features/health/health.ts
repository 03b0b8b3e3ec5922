// Endpoint health, put together once by the composition root: the 90-day history, the monitor (states,
// incidents, breaker alerts), the operator alerts, the probes and the status document.
import type { Logger } from 'pino';
import type { RedisClientType } from 'redis';
import type { EndpointSpec, UpstreamSpec } from '../../engine/catalog/load.js';
import type { HealthConfig } from '../../engine/config.js';
import type { Db } from '../../engine/db/open.js';
import type { Store } from '../../engine/store/types.js';
import type { UpstreamEvents } from '../../engine/upstream/upstream-events.js';
import { createHealthHistory } from './history.js';
import { Alerts } from './alerts.js';
import { createMonitor } from './monitor.js';
import { createProber, type ProbeRun } from './probes.js';
import { probeSlot } from './probe-slot.js';
import { statusDocument } from './status.js';

export interface HealthDeps {
  config: HealthConfig;
  endpoints: EndpointSpec[];
  upstreams: Record<string, UpstreamSpec>;
  env: NodeJS.ProcessEnv;
  /** The 90-day history's counters. */
  store: Store;
  /** Last probes, incidents and alert claims. */
  db: Db;
  events: UpstreamEvents;
  log: Logger;
  redis: RedisClientType | undefined;
  prefix: string;
  userAgent: string;
  allowPrivate: boolean;
  /** Runs a probe's request through the engine (server/probe-routes.ts). */
  run: ProbeRun;
}

export function createHealth(deps: HealthDeps) {
  const { config, log } = deps;
  const history = createHealthHistory(deps.store, log);
  const alerts = new Alerts({
    webhookUrl: config.alertWebhookUrl,
    db: deps.db,
    log,
    userAgent: deps.userAgent,
    allowPrivate: deps.allowPrivate,
    retryDelaysMs: config.alertRetryDelaysMs,
  });
  const monitor = createMonitor({ ...deps, history, alerts, probeIntervalMs: config.probeIntervalMs });
  const prober = createProber({
    endpoints: deps.endpoints,
    run: deps.run,
    monitor,
    alerts,
    log,
    intervalMs: config.probeIntervalMs,
    only: config.probeEndpoints,
    failuresToAlert: config.alertProbeFailures,
    claim: probeSlot(deps.redis, deps.prefix, config.probeIntervalMs),
  });
  void monitor.ready.then(() => prober.start());
  return {
    monitor,
    prober,
    alerts,
    status: statusDocument(deps.endpoints, monitor, history, config.probeIntervalMs),
    /** Whom alerts are mailed to when SMTP is set (ALERT_EMAIL, else ADMIN_EMAIL). */
    alertEmail: config.alertEmail,
    async close() {
      await prober.close();
      await monitor.close();
      await alerts.settled();
      await history.close();
    },
  };
}

export type Health = ReturnType<typeof createHealth>;
