// Incidents: opened when an endpoint leaves "operational", updated when its state changes, closed when it is
// back. One open incident per endpoint however many instances see the change: the table's partial unique
// index (endpoint, where closed_at is null) lets one insert through; the others read the one it made.
// Changes to an incident are compare-and-set on its updates, so two instances never lose each other's.
// Closed incidents are kept 90 days (by their opening), then dropped.
import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { IncidentsTable } from '../../engine/db/tables/health.js';
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

const KEEP_MS = HISTORY_DAYS * 86_400_000;
/** The most incidents a list gives (newest first): the status page shows far fewer. */
const LIST_MAX = 1000;
/** How often an instance drops the expired ones. */
const EXPIRE_EVERY_MS = 3_600_000;

type Row = Selectable<IncidentsTable>;

const incidentOf = (r: Row): Incident => ({
  id: r.id,
  endpoint: r.endpoint,
  state: r.state as TroubleState,
  openedAt: r.openedAt,
  ...(r.closedAt ? { closedAt: r.closedAt } : {}),
  updates: JSON.parse(r.updates) as IncidentUpdate[],
});

const newestFirst = (a: Incident, b: Incident) => b.openedAt.localeCompare(a.openedAt) || b.id.localeCompare(a.id);

export class Incidents {
  private expired = -Infinity;

  constructor(private readonly db: Db) {}

  /** Opens one for the endpoint, or, when one is open already, notes the new state on it. */
  async trouble(endpoint: string, state: TroubleState, note: string, at = new Date()): Promise<Incident> {
    const id = `${at.toISOString().slice(0, 10)}-${crypto.randomBytes(4).toString('hex')}`;
    const update: IncidentUpdate = { at: at.toISOString(), state, note };
    const incident: Incident = { id, endpoint, state, openedAt: update.at, updates: [update] };
    for (;;) {
      const inserted = await this.db
        .insertInto('incidents')
        .values({ id, endpoint, state, openedAt: update.at, closedAt: null, updates: JSON.stringify(incident.updates) })
        .onConflict((oc) => oc.column('endpoint').where('closedAt', 'is', null).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return incident;
      // Another instance opened it: note the state on that one.
      const open = await this.openRow(endpoint);
      // Closed in between: open a new one.
      if (!open) continue;
      if (open.state === state) return incidentOf(open);
      const next = { ...incidentOf(open), state, updates: [...incidentOf(open).updates, update] };
      if (await this.change(open, { state, updates: JSON.stringify(next.updates) })) return next;
    }
  }

  /** Closes the endpoint's open incident; undefined when none was open (or another instance closed it). */
  async resolve(endpoint: string, note: string, at = new Date()): Promise<Incident | undefined> {
    for (;;) {
      const open = await this.openRow(endpoint);
      if (!open) return undefined;
      const closed: Incident = {
        ...incidentOf(open),
        closedAt: at.toISOString(),
        updates: [...incidentOf(open).updates, { at: at.toISOString(), state: 'operational', note }],
      };
      if (await this.change(open, { closedAt: closed.closedAt, updates: JSON.stringify(closed.updates) })) return closed;
    }
  }

  /** The open incidents, one per endpoint at most (the partial unique index holds just these). */
  async open(): Promise<Incident[]> {
    const rows = await this.db.selectFrom('incidents').selectAll().where('closedAt', 'is', null).execute();
    return rows.map(incidentOf);
  }

  /** Drops the closed incidents opened over 90 days ago (at most hourly: the monitor asks at each refresh). */
  async expire(now = Date.now()): Promise<void> {
    if (now - this.expired < EXPIRE_EVERY_MS) return;
    this.expired = now;
    const cutoff = new Date(now - KEEP_MS).toISOString();
    await this.db.deleteFrom('incidents').where('openedAt', '<', cutoff).where('closedAt', 'is not', null).execute();
  }

  /** The open incidents and those opened in the last 90 days, newest first. */
  async list(now = Date.now()): Promise<Incident[]> {
    const cutoff = new Date(now - KEEP_MS).toISOString();
    const [open, recent] = await Promise.all([
      this.open(),
      this.db
        .selectFrom('incidents')
        .selectAll()
        .where('openedAt', '>=', cutoff)
        .orderBy('openedAt', 'desc')
        .orderBy('id', 'desc')
        .limit(LIST_MAX)
        .execute(),
    ]);
    // An incident open longer than the window is still news.
    const seen = new Set(recent.map((r) => r.id));
    return [...recent.map(incidentOf), ...open.filter((i) => !seen.has(i.id))].sort(newestFirst);
  }

  /** The endpoint's open incident (by the partial unique index). */
  private openRow(endpoint: string): Promise<Row | undefined> {
    return this.db.selectFrom('incidents').selectAll().where('endpoint', '=', endpoint).where('closedAt', 'is', null).executeTakeFirst();
  }

  /** Writes a change to an open incident unless another instance changed it since `was` was read. */
  private async change(was: Row, set: { state?: string; closedAt?: string; updates: string }): Promise<boolean> {
    const done = await this.db
      .updateTable('incidents')
      .set(set)
      .where('id', '=', was.id)
      .where('closedAt', 'is', null)
      .where('updates', '=', was.updates)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }
}
