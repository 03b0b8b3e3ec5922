// The request log (features/request-log/): one row per API call, what it asked and what it was answered, with
// its secrets redacted. On PostgreSQL the table is partitioned by `drop_day`, the day its row is dropped
// (its plan's retention added to the day of the call), so the retention sweep drops whole partitions; on
// SQLite it deletes by the same column's index.
export interface RequestLogTable {
  /** The call's time in base 36 (9 characters), its place within the millisecond (2) and 8 random ones: unique, and in time order (the cursor). */
  id: string;
  /** The day (days since the epoch, UTC) from which the row is gone. */
  dropDay: number;
  /** Epoch ms. */
  at: number;
  /** The caller's X-Request-Id, or the one the service gave: what every answer carries as metadata.requestId. */
  requestId: string;
  /** Whose calls these are: an account's id, `key:<id>` for a personal key of no account, null for shared keys. */
  owner: string | null;
  keyId: string | null;
  plan: string | null;
  endpoint: string;
  method: string;
  status: number;
  /** status / 100: the status class filter's index. */
  statusClass: number;
  code: string | null;
  ms: number;
  /** The provider that answered. */
  source: string | null;
  /** JSON: the providers tried, in order ({ upstream, status, code?, ms, breaker? }). */
  providers: string | null;
  /** 0 or 1. */
  cached: number;
  bytesOut: number;
  /** The client address, truncated unless REQUEST_LOG_IP=full. */
  ip: string | null;
  /** JSON of the parameters, secrets redacted, at most 8 KB. */
  params: string | null;
  /** JSON of the uploads (field, name, type, size), at most 8 KB. */
  uploads: string | null;
  /** The error envelope's message, at most 8 KB. */
  error: string | null;
}

export interface RequestLogTables {
  requestLog: RequestLogTable;
}
