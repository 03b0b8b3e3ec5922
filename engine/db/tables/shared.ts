// What several features keep: one-time claims (an alert or a mail sent once across instances), the
// server's own secrets, and which earlier layouts' data has been moved in (engine/db/legacy/).
export interface ClaimsTable {
  /** What is claimed ('health-alert', 'quota-mail', …) */
  scope: string;
  id: string;
  at: number;
  /** Dropped after this (epoch ms). */
  expiresAt: number;
  /** What the claim holder keeps with it (JSON), if anything. */
  note: string | null;
}

export interface SecretsTable {
  name: string;
  value: string;
}

/** Settings as last applied to the records (a start compares them with the configuration's). */
export interface SettingsTable {
  name: string;
  value: string;
}

export interface LegacyImportsTable {
  source: string;
  at: string;
  /** JSON: rows moved per table. */
  counts: string;
}

export interface SharedTables {
  claims: ClaimsTable;
  secrets: SecretsTable;
  settings: SettingsTable;
  legacyImports: LegacyImportsTable;
}
