// Endpoint health: each endpoint's last probe, incidents (features/health/).
export interface ProbesTable {
  endpoint: string;
  at: string;
  status: number;
  code: string | null;
  ms: number;
  source: string | null;
  verdict: string;
  fails: number;
  oks: number;
}

export interface IncidentsTable {
  id: string;
  endpoint: string;
  state: string;
  openedAt: string;
  /** null while open: at most one open incident per endpoint (a partial unique index). */
  closedAt: string | null;
  /** JSON array of the incident's updates. */
  updates: string;
}

export interface HealthTables {
  probes: ProbesTable;
  incidents: IncidentsTable;
}
