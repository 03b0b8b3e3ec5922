// A recorded call as the inspector, the API and the exports show it: the row's JSON columns read back, and
// the parameters Replay in Try it may send again (never a redacted or cut one).
import type { LogRow } from './records.js';
import { REDACTED, TRUNCATED } from './redact.js';
import type { ProviderAttempt } from '../../engine/pipeline/call.js';

export type LoggedCall = {
  /** The row's own id: the cursor of the page that ends with it. */
  id: string;
  requestId: string;
  at: string;
  keyId: string | null;
  endpoint: string;
  method: string;
  status: number;
  code: string | null;
  ms: number;
  source: string | null;
  providers: ProviderAttempt[];
  cached: boolean;
  bytesOut: number;
  ip: string | null;
  params: Record<string, unknown>;
  /** Names whose values were cut to fit the 8 KB of the parameters. */
  truncated: string[];
  uploads: { field: string; name: string; type: string; size: number }[];
  error: string | null;
};

const parsed = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export function loggedCall(r: LogRow): LoggedCall {
  const params = parsed<Record<string, unknown>>(r.params, {});
  const truncated = Array.isArray(params[TRUNCATED]) ? (params[TRUNCATED] as string[]) : [];
  delete params[TRUNCATED];
  return {
    id: r.id,
    requestId: r.requestId,
    at: new Date(r.at).toISOString(),
    keyId: r.keyId,
    endpoint: r.endpoint,
    method: r.method,
    status: r.status,
    code: r.code,
    ms: r.ms,
    source: r.source,
    providers: parsed(r.providers, []),
    cached: r.cached === 1,
    bytesOut: r.bytesOut,
    ip: r.ip,
    params,
    truncated,
    uploads: parsed(r.uploads, []),
    error: r.error,
  };
}

/** The parameters a replay may send: scalars only, none redacted, cut or naming a key. */
export function replayable(c: LoggedCall): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(c.params)) {
    if (name === 'apikey' || c.truncated.includes(name)) continue;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    const text = String(v);
    if (text.includes(REDACTED)) continue;
    out[name] = text;
  }
  return out;
}

const CSV_COLUMNS = [
  'request_id',
  'at',
  'key_id',
  'endpoint',
  'method',
  'status',
  'code',
  'ms',
  'source',
  'providers',
  'cached',
  'bytes_out',
  'ip',
  'params',
  'uploads',
  'error',
] as const;

/** A CSV field, quoted when it must be, and never read as a formula by a spreadsheet. */
function field(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvHeader = () => `${CSV_COLUMNS.join(',')}\r\n`;

export function csvLine(c: LoggedCall): string {
  const values = [
    c.requestId,
    c.at,
    c.keyId,
    c.endpoint,
    c.method,
    c.status,
    c.code,
    c.ms,
    c.source,
    c.providers.length ? c.providers : '',
    c.cached,
    c.bytesOut,
    c.ip,
    Object.keys(c.params).length ? c.params : '',
    c.uploads.length ? c.uploads : '',
    c.error,
  ];
  return `${values.map(field).join(',')}\r\n`;
}
