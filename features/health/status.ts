// The public status document (/status.json, and the page and feed made from it): every category and
// endpoint with its state now, its 90 days of uptime, median and 95th-percentile latency, who answers, and
// the incidents. Built at most every few seconds whatever the traffic on /status.
import type { EndpointSpec } from '../../engine/catalog/load.js';
import { HISTORY_DAYS, dayStart, type HealthHistory } from './history.js';
import { providersOf, type EndpointState, type Monitor } from './monitor.js';
import type { Incident } from './incidents.js';

export interface EndpointStatus {
  id: string;
  name: string;
  summary: string;
  state: EndpointState;
  note?: string;
  /** The upstreams that may answer, in order ([] when the endpoint is answered in process). */
  providers: string[];
  /** Who answered most in the last 7 days ('embedded' for an endpoint answered in process). */
  provider: string | null;
  /** Percent of good answers over 90 days; null without answers. */
  uptime: number | null;
  /** Per day, oldest first: percent of good answers, null without any. */
  daily: (number | null)[];
  p50Ms: number | null;
  p95Ms: number | null;
  lastProbe: { at: string; status: number; code?: string; ms: number } | null;
}

export interface CategoryStatus {
  id: string;
  state: EndpointState;
  endpoints: EndpointStatus[];
}

export interface StatusDocument {
  generatedAt: string;
  /** The worst state of any endpoint measured; `no_data` when none was, `not_configured` when none is configured. */
  state: EndpointState;
  /** Endpoints per state: only measured ones count as operational, degraded, changed or down. */
  counts: Record<EndpointState, number>;
  /** How often probes run (PROBE_INTERVAL); 0: never on a schedule, states come from real calls only. */
  probeIntervalMs: number;
  /** The first day of `daily` (UTC), and how many there are. */
  from: string;
  days: number;
  categories: CategoryStatus[];
  /** The last 90 days', newest first. */
  incidents: Incident[];
}

const STATES: EndpointState[] = ['operational', 'degraded', 'changed', 'down', 'no_data', 'not_configured'];
const RANK: Record<EndpointState, number> = { not_configured: -2, no_data: -1, operational: 0, degraded: 1, changed: 2, down: 3 };
const CACHE_MS = 3000;

/** The worst state measured; without one, no data (or not configured, when nothing is). */
const worst = (states: EndpointState[]) => states.reduce<EndpointState>((w, s) => (RANK[s] > RANK[w] ? s : w), 'not_configured');

export function statusDocument(endpoints: EndpointSpec[], monitor: Monitor, history: HealthHistory, probeIntervalMs: number) {
  let cached: { at: number; doc: Promise<StatusDocument> } | undefined;
  monitor.onChange(() => (cached = undefined));

  const build = async (): Promise<StatusDocument> => {
    const now = Date.now();
    await monitor.refresh();
    const [histories, incidents] = await Promise.all([
      history.read(
        endpoints.map((e) => e.id),
        now,
      ),
      monitor.incidents.list(now),
    ]);
    const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<EndpointState, number>;
    const categories = new Map<string, EndpointStatus[]>();
    for (const spec of endpoints) {
      const j = monitor.judge(spec.id)!;
      const h = histories.get(spec.id)!;
      const probe = monitor.lastProbe(spec.id);
      const providers = providersOf(spec);
      counts[j.state]++;
      const row: EndpointStatus = {
        id: spec.id,
        name: spec.name,
        summary: spec.summary,
        state: j.state,
        ...(j.note ? { note: j.note } : {}),
        providers,
        provider: h.provider ?? (providers.length ? null : 'embedded'),
        uptime: h.uptime,
        daily: h.days.map((d) => {
          const n = d.ok + d.fail + d.changed;
          return n ? Math.floor((d.ok / n) * 10000) / 100 : null;
        }),
        p50Ms: h.p50Ms,
        p95Ms: h.p95Ms,
        lastProbe: probe ? { at: probe.at, status: probe.status, ...(probe.code ? { code: probe.code } : {}), ms: probe.ms } : null,
      };
      categories.set(spec.category, [...(categories.get(spec.category) ?? []), row]);
    }
    const cats = [...categories].map(([id, rows]) => ({ id, state: worst(rows.map((r) => r.state)), endpoints: rows }));
    return {
      generatedAt: new Date(now).toISOString(),
      state: worst(cats.flatMap((c) => c.endpoints.map((e) => e.state))),
      counts,
      probeIntervalMs,
      from: new Date(dayStart(now) - (HISTORY_DAYS - 1) * 86_400_000).toISOString().slice(0, 10),
      days: HISTORY_DAYS,
      categories: cats,
      incidents,
    };
  };

  /** The document, built again when older than a few seconds (`fresh`: now). */
  return (fresh = false): Promise<StatusDocument> => {
    const now = Date.now();
    if (fresh || !cached || now - cached.at > CACHE_MS) {
      const doc = build();
      cached = { at: now, doc };
      doc.catch(() => {
        if (cached?.doc === doc) cached = undefined;
      });
    }
    return cached.doc;
  };
}
