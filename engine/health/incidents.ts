// Incidents: opened when an endpoint leaves "operational", updated when its state changes, closed when it is
// back. One open incident per endpoint however many instances see the change: the first to insert the
// endpoint's marker into 'health-open' opens it (insert succeeds for one caller only). Closed incidents are
// kept 90 days, then dropped when the list is next read.
import crypto from 'node:crypto';
import type { Store } from '../store/types.js';
import { HISTORY_DAYS } from './history.js';

export type TroubleState = 'degraded' | 'changed' | 'down';

export interface IncidentUpdate {
  at: string;
  state: TroubleState | 'operational';
  note: string;
}

export interface Incident {
  id: string;
  endpoint: string;
  /** The state now, or the last one before it closed. */
  state: TroubleState;
  openedAt: string;
  closedAt?: string;
  /** Oldest first. */
  updates: IncidentUpdate[];
}

const DOCS = 'health-incidents';
const OPEN = 'health-open';
const KEEP_MS = HISTORY_DAYS * 86_400_000;

export class Incidents {
  constructor(private readonly store: Store) {}

  /** Opens one for the endpoint, or, when one is open already, notes the new state on it. */
  async trouble(endpoint: string, state: TroubleState, note: string, at = new Date()): Promise<Incident> {
    const id = `${at.toISOString().slice(0, 10)}-${crypto.randomBytes(4).toString('hex')}`;
    const update: IncidentUpdate = { at: at.toISOString(), state, note };
    if (await this.store.insert(OPEN, endpoint, { id })) {
      const incident: Incident = { id, endpoint, state, openedAt: update.at, updates: [update] };
      await this.store.put(DOCS, id, incident);
      return incident;
    }
    const open = await this.store.get<{ id: string }>(OPEN, endpoint);
    const incident = open && (await this.store.get<Incident>(DOCS, open.id));
    // The marker without its document: a write lost half-way. Start over.
    if (!incident) {
      await this.store.del(OPEN, endpoint);
      return this.trouble(endpoint, state, note, at);
    }
    if (incident.state === state) return incident;
    const next = { ...incident, state, updates: [...incident.updates, update] };
    await this.store.put(DOCS, incident.id, next);
    return next;
  }

  /** Closes the endpoint's open incident; undefined when none was open (or another instance closed it). */
  async resolve(endpoint: string, note: string, at = new Date()): Promise<Incident | undefined> {
    const open = await this.store.get<{ id: string }>(OPEN, endpoint);
    if (!open || !(await this.store.del(OPEN, endpoint))) return undefined;
    const incident = await this.store.get<Incident>(DOCS, open.id);
    if (!incident) return undefined;
    const closed: Incident = {
      ...incident,
      closedAt: at.toISOString(),
      updates: [...incident.updates, { at: at.toISOString(), state: 'operational', note }],
    };
    await this.store.put(DOCS, incident.id, closed);
    return closed;
  }

  /** Every incident of the last 90 days, newest first (older closed ones are dropped). */
  async list(now = Date.now()): Promise<Incident[]> {
    const all = await this.store.list<Incident>(DOCS);
    const kept: Incident[] = [];
    for (const i of all) {
      if (i.closedAt && now - Date.parse(i.closedAt) > KEEP_MS) await this.store.del(DOCS, i.id);
      else kept.push(i);
    }
    return kept.sort((a, b) => b.openedAt.localeCompare(a.openedAt));
  }
}
