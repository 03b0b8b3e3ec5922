// What the account's inspector and the operators' share: the filters read from a page's query (a bad one
// is a 400 page that names it), a page of calls, a call, and the exports (CSV or JSON) of a filter, written
// a page at a time so that a large export never sits whole in memory.
import type { Request, Response } from 'express';
import { ApiError } from '../../engine/errors.js';
import { logFilter, type LogFilter } from '../../features/request-log/filter.js';
import { csvHeader, csvLine, loggedCall, type LoggedCall } from '../../features/request-log/entry.js';
import type { LogRecords } from '../../features/request-log/records.js';
import { PageError } from '../shared/pages.js';

/** The most calls one export holds (the newest of the filter). */
const EXPORT_MAX = 10_000;
const EXPORT_PAGE = 500;
const FORM_FIELDS = ['requestId', 'account', 'key', 'endpoint', 'status', 'code', 'from', 'to', 'cursor'];

/** The query's filter fields as strings (the form's values and the links' query). */
export function askedOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORM_FIELDS) {
    const v = req.query[name];
    if (typeof v === 'string' && v.trim()) out[name] = v.trim().slice(0, 200);
  }
  return out;
}

export function filterOf(asked: Record<string, string>, maxPage?: number): LogFilter {
  try {
    return logFilter(asked, maxPage);
  } catch (err) {
    if (err instanceof ApiError) throw new PageError(400, 'Bad filter', err.message);
    throw err;
  }
}

export async function pageOf(
  records: LogRecords,
  owner: string | undefined,
  filter: LogFilter,
): Promise<{ calls: LoggedCall[]; owners: Map<string, string | null>; last: string | undefined }> {
  const { rows, more } = await records.list({ ...filter, owner });
  return {
    calls: rows.map(loggedCall),
    owners: new Map(rows.map((r) => [r.id, r.owner])),
    last: more ? rows[rows.length - 1].id : undefined,
  };
}

/** Writes the filter's calls, newest first, as CSV or JSON (a list of calls), at most EXPORT_MAX. */
export async function sendExport(res: Response, records: LogRecords, owner: string | undefined, filter: LogFilter, kind: 'csv' | 'json') {
  res
    .set('Cache-Control', 'no-store')
    .type(kind === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    .attachment(`requests.${kind}`);
  res.write(kind === 'csv' ? csvHeader() : '[');
  let after = filter.after;
  let sent = 0;
  while (sent < EXPORT_MAX) {
    const { rows, more } = await records.list({ ...filter, owner, after, limit: Math.min(EXPORT_PAGE, EXPORT_MAX - sent) });
    const chunk = rows.map((r) => {
      const c = loggedCall(r);
      return kind === 'csv' ? csvLine(c) : `${sent++ ? ',' : ''}\n${JSON.stringify(c)}`;
    });
    if (kind === 'csv') sent += rows.length;
    res.write(chunk.join(''));
    if (!more || !rows.length) break;
    after = rows[rows.length - 1].id;
  }
  res.end(kind === 'csv' ? '' : '\n]\n');
}
