// Each endpoint's last probe, whichever instance ran it, with its streaks: one row per endpoint of the
// probes table (bounded by the catalog, so every instance reads them all every few seconds).
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { ProbesTable } from '../../engine/db/tables/health.js';
import type { Verdict } from './verdict.js';

/** The last probe of an endpoint, as stored. */
export interface ProbeRecord {
  at: string;
  status: number;
  code?: string;
  ms: number;
  source?: string;
  verdict: Verdict;
  /** Probes failed in a row, this one included (0 when it went well). */
  fails: number;
  /** Probes that went well in a row, this one included (0 when it failed). */
  oks: number;
}

const probeOf = (r: Selectable<ProbesTable>): ProbeRecord => ({
  at: r.at,
  status: r.status,
  ...(r.code !== null ? { code: r.code } : {}),
  ms: r.ms,
  ...(r.source !== null ? { source: r.source } : {}),
  verdict: r.verdict as Verdict,
  fails: r.fails,
  oks: r.oks,
});

export class LastProbes {
  constructor(private readonly db: Db) {}

  /** Keeps the probe as the endpoint's last, its streaks going on from the stored ones. */
  async record(endpoint: string, p: Omit<ProbeRecord, 'fails' | 'oks'>): Promise<ProbeRecord> {
    const ok = p.verdict === 'ok';
    const row = { at: p.at, status: p.status, code: p.code ?? null, ms: p.ms, source: p.source ?? null, verdict: p.verdict };
    // One statement (an upsert that counts on): two instances probing at once both count.
    const stored = await this.db
      .insertInto('probes')
      .values({ endpoint, ...row, fails: ok ? 0 : 1, oks: ok ? 1 : 0 })
      .onConflict((oc) =>
        oc.column('endpoint').doUpdateSet((eb) => ({
          ...row,
          fails: ok ? 0 : eb(eb.ref('probes.fails'), '+', 1),
          oks: ok ? eb(eb.ref('probes.oks'), '+', 1) : 0,
        })),
      )
      .returning(['fails', 'oks'])
      .executeTakeFirstOrThrow();
    return { ...p, fails: stored.fails, oks: stored.oks };
  }

  /** Every endpoint's last probe: one query. */
  async all(): Promise<Map<string, ProbeRecord>> {
    const rows = await this.db.selectFrom('probes').selectAll().execute();
    return new Map(rows.map((r) => [r.endpoint, probeOf(r)]));
  }
}
