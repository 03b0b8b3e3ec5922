// Probes: every PROBE_INTERVAL, each endpoint that has an upstream and is configured here is asked its
// documented example request (the one the OpenAPI document shows: engine/openapi/params.ts), through the
// engine's own route chain in process but never metered, counted in usage or answered from the cache
// (server/probe-routes.ts). Its outcome, latency and drift go to the endpoint's health (monitor.ts); a probe
// that fails N times in a row, and its recovery, raise an operator alert. With Redis one instance probes
// each interval: the first to claim the interval's slot (probe-slot.ts). Operators probe one endpoint on
// demand from /admin/status.
import type { Logger } from 'pino';
import type { EndpointSpec } from '../../engine/catalog/load.js';
import { exampleRequest } from '../../engine/openapi/params.js';
import type { Alerts } from './alerts.js';
import { providersOf, type Monitor, type ProbeRecord } from './monitor.js';

/** What a probe's request got: the answer's status, its error code or source, and how long it took. */
export interface ProbeAnswer {
  status: number;
  code?: string;
  source?: string;
  ms: number;
}

/** Runs the example request of an endpoint through the engine (server/probe-routes.ts). */
export type ProbeRun = (spec: EndpointSpec, params: Record<string, string | number | boolean>) => Promise<ProbeAnswer>;

/** True when this instance is the one to probe the interval starting at `slotStart` (probe-slot.ts). */
export type SlotClaim = (slotStart: number) => Promise<boolean>;

export interface ProberDeps {
  endpoints: EndpointSpec[];
  run: ProbeRun;
  monitor: Monitor;
  alerts: Alerts;
  log: Logger;
  /** 0: no schedule (on demand only). */
  intervalMs: number;
  /** Only these endpoints are probed on the schedule (PROBE_ENDPOINTS); all when empty. */
  only: string[];
  /** Probes failed in a row that raise an alert (ALERT_PROBE_FAILURES). */
  failuresToAlert: number;
  claim: SlotClaim;
  /** Probes at once. */
  concurrency?: number;
}

export function createProber(deps: ProberDeps) {
  const { monitor, alerts, log } = deps;
  // An example needs every required value made up, and no file (a probe sends JSON). Made at first use:
  // each compiles the endpoint's schema, which boot need not pay for when nothing probes.
  let made: Map<string, Record<string, string | number | boolean>> | undefined;
  const examples = () => {
    if (made) return made;
    made = new Map();
    for (const spec of deps.endpoints)
      if (providersOf(spec).length && !Object.values(spec.params).some((p) => p.type === 'file')) made.set(spec.id, exampleRequest(spec));
    return made;
  };
  const byId = new Map(deps.endpoints.map((s) => [s.id, s]));
  const probeable = (id: string) => examples().has(id) && monitor.isConfigured(id);

  const alertOn = (spec: EndpointSpec, rec: ProbeRecord) => {
    const n = deps.failuresToAlert;
    if (rec.fails === n)
      alerts.raise({
        kind: 'probe.failing',
        subject: spec.id,
        title: `Probe of ${spec.id} failed ${n} time${n === 1 ? '' : 's'} in a row (${rec.code ?? `HTTP ${rec.status}`})`,
        detail: `Its example request answered ${rec.status}${rec.code ? ` ${rec.code}` : ''} after ${rec.ms} ms at ${rec.at}.`,
        at: rec.at,
      });
    return rec;
  };

  /** Probes one endpoint now; undefined when it has no upstream, no usable example or no configuration. */
  const probe = async (id: string): Promise<ProbeRecord | undefined> => {
    const spec = byId.get(id);
    if (!spec || !probeable(id)) return undefined;
    const before = monitor.lastProbe(id);
    const at = new Date().toISOString();
    const answer = await deps.run(spec, examples().get(id)!);
    const rec = await monitor.recordProbe(id, { at, ...answer, ms: Math.round(answer.ms) });
    if (!rec) return undefined;
    if (rec.fails === 0 && before && before.fails >= deps.failuresToAlert)
      alerts.raise({
        kind: 'probe.recovered',
        subject: spec.id,
        title: `Probe of ${spec.id} recovered`,
        detail: `Its example request answered ${rec.status} in ${rec.ms} ms at ${rec.at}, after ${before.fails} failed probes.`,
        at: rec.at,
      });
    return alertOn(spec, rec);
  };

  /** Every endpoint on the schedule's list, a few at a time. */
  const probeAll = async () => {
    const ids = [...examples().keys()].filter((id) => probeable(id) && (!deps.only.length || deps.only.includes(id)));
    let i = 0;
    const worker = async () => {
      while (i < ids.length) {
        const id = ids[i++];
        await probe(id).catch((err: Error) => log.warn({ err: err.message, endpoint: id }, 'probe: failed to run'));
      }
    };
    await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 4, ids.length) }, worker));
    return ids.length;
  };

  // Ticks at the interval's boundaries (plus a little jitter), so the instances race for the same slot.
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped || !deps.intervalMs) return;
    const I = deps.intervalMs;
    const now = Date.now();
    const slot = Math.floor(now / I) * I + I;
    timer = setTimeout(
      () => {
        running = deps
          .claim(slot)
          .then((mine) => (mine ? probeAll() : 0))
          .catch((err: Error) => log.warn({ err: err.message }, 'probe: the round failed'))
          .finally(schedule);
      },
      slot - now + Math.floor(Math.random() * Math.min(1000, I / 10)),
    );
    timer.unref();
  };

  return {
    start: schedule,
    probe,
    probeAll,
    /** Ids of the endpoints a probe can run on, here. */
    probeable: () => [...examples().keys()].filter(probeable),
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
