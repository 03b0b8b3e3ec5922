// The health of every endpoint now: operational, degraded, changed (the upstream answers in a shape its
// adapter does not read), down, not configured (no URL or required key for any of its providers), or no
// data (nothing measured it lately: no call, no probe; an open incident then keeps its state, so the page
// never says an endpoint is well beside an incident that says it is not, a restart included). Judged
// from what this instance saw lately (real traffic and probes, in a window of a few minutes), the last
// probe any instance ran (the probes table, read every few seconds) and the upstreams' circuit breakers
// (engine/upstream/upstream-events.ts). A change of state opens, updates or closes the endpoint's
// incident; a breaker that opens or closes raises an operator alert.
import type { Logger } from 'pino';
import type { EndpointSpec, UpstreamSpec } from '../../engine/catalog/load.js';
import type { Db } from '../../engine/db/open.js';
import type { BreakerChange, UpstreamEvents } from '../../engine/upstream/upstream-events.js';
import { unconfiguredNote } from '../../engine/upstream/configured.js';
import type { HealthHistory } from './history.js';
import { Incidents, type TroubleState } from './incidents.js';
import type { Alerts } from './alerts.js';
import { verdictOf, type Verdict } from './verdict.js';
import { ReusedRing } from '../../engine/reused-ring.js';
import { LastProbes, type ProbeRecord } from './last-probes.js';

export type { ProbeRecord } from './last-probes.js';

export type EndpointState = 'operational' | TroubleState | 'not_configured' | 'no_data';

/** States that say nothing was judged: no incident opens or closes for them. */
const unjudged = (s: EndpointState) => s === 'not_configured' || s === 'no_data';

export interface Judgement {
  state: EndpointState;
  /** Why, in a few words (absent when operational). */
  note?: string;
}

interface Seen {
  at: number;
  verdict: Verdict;
  code?: string;
}

/** Failed answers in a row that make an endpoint down rather than degraded. */
const DOWN_STREAK = 3;
/** Answers kept per endpoint, and for how long at least. */
const WINDOW_SIZE = 20;
const MIN_WINDOW_MS = 15 * 60_000;
const REFRESH_MS = 10_000;

export interface MonitorDeps {
  endpoints: EndpointSpec[];
  upstreams: Record<string, UpstreamSpec>;
  env: NodeJS.ProcessEnv;
  db: Db;
  events: UpstreamEvents;
  history: HealthHistory;
  alerts: Alerts;
  log: Logger;
  /** Probes' interval: a failed probe is remembered at least twice as long. */
  probeIntervalMs: number;
}

/** The upstreams an endpoint may be answered by, in order (none for an embedded one). */
export const providersOf = (spec: EndpointSpec) =>
  [spec.upstream, ...(spec.fallback ?? []).map((p) => p.upstream)].filter((u) => u !== 'embedded');

export function createMonitor(deps: MonitorDeps) {
  const { db, events, history, alerts, log } = deps;
  const byId = new Map(deps.endpoints.map((s) => [s.id, s]));
  const unconfigured = new Map<string, string>();
  for (const s of deps.endpoints) {
    const note = unconfiguredNote(s, deps.upstreams, deps.env);
    if (note) unconfigured.set(s.id, note);
  }
  const usedBy = new Map<string, EndpointSpec[]>();
  for (const s of deps.endpoints) for (const u of providersOf(s)) usedBy.set(u, [...(usedBy.get(u) ?? []), s]);
  const incidents = new Incidents(db);
  const lastProbes = new LastProbes(db);
  const windowMs = Math.max(MIN_WINDOW_MS, 2 * deps.probeIntervalMs);

  /** Each endpoint's last answers (engine/reused-ring.ts: recording allocates nothing once it is full). */
  const seen = new Map<string, ReusedRing<Seen>>();
  let probes = new Map<string, ProbeRecord>();
  /** Endpoint → the state of its open incident, as last read or written. */
  let open = new Map<string, TroubleState>();
  /** Told when an incident opens, changes or closes (the status document drops its copy). */
  const changed: (() => void)[] = [];
  /** Endpoints judged operational without an open incident: a good answer leaves them so. */
  const calm = new Set<string>();
  /** Each endpoint's judgements, one at a time (incidents are read and written in between). */
  const queue = new Map<string, Promise<void>>();

  const judge = (spec: EndpointSpec, now = Date.now()): Judgement & { newestOk: boolean } => {
    const lack = unconfigured.get(spec.id);
    if (lack) return { state: 'not_configured', note: lack, newestOk: false };
    // Real traffic this instance answered, and the endpoint's last probe, whichever instance ran it (probes
    // are kept only there, with their streaks: each instance sees the same probe history).
    const w: (Seen & { weight?: number })[] = (seen.get(spec.id)?.entries() ?? [])
      .filter((s) => s.at >= now - windowMs)
      .map((s) => ({ ...s }));
    const probe = probes.get(spec.id);
    if (probe && now - Date.parse(probe.at) <= windowMs)
      w.push({
        at: Date.parse(probe.at),
        verdict: probe.verdict,
        code: probe.code,
        weight: Math.max(1, probe.verdict === 'ok' ? probe.oks : probe.fails),
      });
    w.sort((a, b) => a.at - b.at);
    // Answers in a row at the newest end: failed ones (`streak`) or good ones (`good`).
    let streak = 0;
    for (let i = w.length - 1; i >= 0 && w[i].verdict !== 'ok'; i--) streak += w[i].weight ?? 1;
    let good = 0;
    for (let i = w.length - 1; i >= 0 && w[i].verdict === 'ok'; i--) good += w[i].weight ?? 1;
    const newest = w.at(-1);
    const failed = w.filter((s) => s.verdict !== 'ok').length;
    const providers = providersOf(spec);
    const broken = providers.filter((u) => events.state(u)?.state === 'open');
    const newestOk = newest?.verdict === 'ok';
    const why = newest?.code ? ` (${newest.code})` : '';
    if (providers.length && broken.length === providers.length)
      return { state: 'down', note: `The circuit breaker of ${broken.join(', ')} is open: the upstream failed repeatedly`, newestOk };
    if (newest?.verdict === 'changed')
      return { state: 'changed', note: "The upstream's answer changed shape: the adapter cannot read it", newestOk };
    if (streak >= DOWN_STREAK) return { state: 'down', note: `${streak} failed answers in a row${why}`, newestOk };
    if (streak > 0) return { state: 'degraded', note: `The last answer failed${why}`, newestOk };
    if (broken.length)
      return { state: 'degraded', note: `The circuit breaker of ${broken.join(', ')} is open; a fallback answers`, newestOk };
    // Flapping: many failures lately, and not yet two good answers in a row since.
    if (good < 2 && failed >= 2 && failed * 4 >= w.length)
      return { state: 'degraded', note: `${failed} of the last ${w.length} answers failed`, newestOk };
    if (newest === undefined) {
      // Nothing measured lately: an open incident stands until an answer goes well (after a restart too).
      const incident = open.get(spec.id);
      if (incident !== undefined)
        return { state: incident, note: 'No answer since: the incident stays open until one goes well', newestOk };
      return { state: 'no_data', note: 'Nothing measured it lately: no call and no probe', newestOk };
    }
    return { state: 'operational', newestOk };
  };

  /** Opens, updates or closes the endpoint's incident to match its state now. */
  const settle = (spec: EndpointSpec, evidence: boolean) => {
    const j = judge(spec);
    const has = open.get(spec.id);
    if (j.state === 'operational' && has === undefined) calm.add(spec.id);
    else calm.delete(spec.id);
    // Nothing to write: the incident (or its absence) already matches.
    const work = unjudged(j.state) ? false : j.state === 'operational' ? has !== undefined && (evidence || j.newestOk) : has !== j.state;
    if (!work) return queue.get(spec.id);
    const run = async () => {
      const j = judge(spec);
      if (unjudged(j.state)) return;
      if (j.state !== 'operational') {
        if (open.get(spec.id) === j.state) return;
        const incident = await incidents.trouble(spec.id, j.state, j.note ?? '');
        open.set(spec.id, incident.state);
        for (const l of changed) l();
      } else if (open.has(spec.id) && (evidence || j.newestOk)) {
        // Closed on evidence only (an answer that went well, a breaker that closed), never because the
        // window emptied: a broken endpoint nobody calls stays broken.
        await incidents.resolve(spec.id, 'Answers are good again');
        open.delete(spec.id);
        calm.add(spec.id);
        for (const l of changed) l();
      }
    };
    const next = (queue.get(spec.id) ?? Promise.resolve())
      .then(run)
      .catch((err: Error) => log.warn({ err: err.message, endpoint: spec.id }, 'health: cannot update the incident'));
    queue.set(spec.id, next);
    return next;
  };

  /** Puts an answer in the endpoint's window. */
  const remember = (endpoint: string, verdict: Verdict, code: string | undefined, at: number) => {
    let w = seen.get(endpoint);
    if (!w) seen.set(endpoint, (w = new ReusedRing<Seen>(WINDOW_SIZE, () => ({ at: 0, verdict: 'ok', code: undefined }))));
    const s = w.slot();
    s.at = at;
    s.verdict = verdict;
    s.code = code;
  };

  /** One answer of an endpoint to a caller at `now` (epoch ms: server/app.ts reads the clock once per answer); probes come through recordProbe. */
  const record = (endpoint: string, status: number, code: string | undefined, ms: number, source: string | undefined, now: number) => {
    const spec = byId.get(endpoint);
    const verdict = verdictOf(status, code);
    if (!spec || !verdict) return;
    history.add(endpoint, 'traffic', verdict, ms, source, now);
    remember(endpoint, verdict, code, now);
    // The path of nearly every call: a good answer to an endpoint that is well changes nothing.
    if (verdict === 'ok' && calm.has(endpoint)) return;
    return settle(spec, false);
  };

  /** A probe's outcome: kept as the endpoint's last probe for every instance, then recorded. */
  const recordProbe = async (endpoint: string, p: Omit<ProbeRecord, 'fails' | 'oks' | 'verdict'>): Promise<ProbeRecord | undefined> => {
    const spec = byId.get(endpoint);
    // A 4xx to the documented example still shows an upstream that answers.
    const verdict = verdictOf(p.status, p.code) ?? (p.status < 500 ? 'ok' : undefined);
    if (!spec || !verdict) return undefined;
    const rec = await lastProbes.record(endpoint, { ...p, verdict });
    probes.set(endpoint, rec);
    history.add(endpoint, 'probe', verdict, p.ms, p.source);
    await settle(spec, false);
    return rec;
  };

  /** Each upstream's breaker as last told here. */
  const breakers = new Map<string, BreakerChange['state']>();
  const onBreaker = (change: BreakerChange) => {
    const before = breakers.get(change.upstream) ?? 'closed';
    breakers.set(change.upstream, change.state);
    const affected = usedBy.get(change.upstream) ?? [];
    // A breaker closes when its trial call went well: an answer measured, for every endpoint it serves.
    if (change.state === 'closed' && before !== 'closed') for (const spec of affected) remember(spec.id, 'ok', undefined, change.at);
    for (const spec of affected) void settle(spec, change.state === 'closed');
    const names = affected.map((s) => s.id).join(', ') || 'none';
    // One alert per episode: the first opening (not each failed half-open try after a cool-down), and the
    // closing; across instances, the claim `<upstream>:open` (features/health/alerts.ts) says whose they are.
    const marker = `${change.upstream}:open`;
    if (change.state === 'open' && before === 'closed')
      alerts.raise(
        {
          kind: 'breaker.open',
          subject: change.upstream,
          title: `Upstream ${change.upstream} is failing: its circuit breaker opened${change.cause ? ` (${change.cause})` : ''}`,
          detail: `Endpoints affected: ${names}.${change.retryAt ? ` Next try at ${new Date(change.retryAt).toISOString()}.` : ''}`,
          at: new Date(change.at).toISOString(),
        },
        { claim: marker },
      );
    else if (change.state === 'closed' && before !== 'closed')
      alerts.raise(
        {
          kind: 'breaker.closed',
          subject: change.upstream,
          title: `Upstream ${change.upstream} recovered: its circuit breaker closed`,
          detail: `Endpoints affected: ${names}.`,
          at: new Date(change.at).toISOString(),
        },
        { release: marker },
      );
  };
  const unlisten = events.onBreaker(onBreaker);

  /** Reads what other instances wrote (last probes, open incidents), then judges the endpoints seen again. */
  const refresh = async () => {
    const [last, opened] = await Promise.all([lastProbes.all(), incidents.open(), incidents.expire()]);
    probes = last;
    open = new Map(opened.map((i) => [i.endpoint, i.state]));
  };
  let refreshing: Promise<void> = Promise.resolve();
  const tick = () => {
    refreshing = refresh()
      .then(() => Promise.all([...new Set([...seen.keys(), ...probes.keys()])].map((id) => byId.get(id)).map((s) => s && settle(s, false))))
      .then(() => undefined)
      .catch((err: Error) => log.warn({ err: err.message }, 'health: cannot read the database'));
    return refreshing;
  };
  const timer = setInterval(() => void tick(), REFRESH_MS);
  timer.unref();
  const ready = tick();

  return {
    ready,
    record,
    recordProbe,
    incidents,
    onChange: (listener: () => void) => void changed.push(listener),
    /** Reads the database again now (what the status page shows). */
    refresh: tick,
    judge: (id: string): Judgement | undefined => {
      const spec = byId.get(id);
      if (!spec) return undefined;
      const { state, note } = judge(spec);
      return { state, ...(note ? { note } : {}) };
    },
    lastProbe: (id: string) => probes.get(id),
    isConfigured: (id: string) => !unconfigured.has(id),
    /** Settles every judgement under way (tests, shutdown). */
    async settled() {
      await refreshing;
      await Promise.all(queue.values());
    },
    async close() {
      clearInterval(timer);
      unlisten();
      await refreshing;
      await Promise.all(queue.values());
    },
  };
}

export type Monitor = ReturnType<typeof createMonitor>;
