// The inspector's filters as the API's query string and the pages' forms give them, checked once: key,
// endpoint, status (a class such as 5xx, or a status), code, from and to (ISO times or epoch ms), request
// id, a cursor and a page size. A bad value is a 400 that names it.
import { invalidParam } from '../../engine/errors.js';
import type { LogQuery } from './records.js';

const PAGE = 50;
const MAX_PAGE = 200;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CURSOR = /^[0-9a-z]{11}[A-Za-z0-9_-]{8}$/;

/** The filters a query string asks for, without the owner (the caller's, or the operator's choice). */
export type LogFilter = Omit<LogQuery, 'owner'>;

const one = (q: Record<string, unknown>, name: string): string | undefined => {
  const v = q[name];
  const s: unknown = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
};

function time(name: string, text: string): number {
  // A form's datetime-local value has no zone: the pages say their times are UTC.
  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(text) ? `${text}Z` : text;
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(iso);
  if (!Number.isFinite(ms)) throw invalidParam(name, 'must be an ISO 8601 time or epoch milliseconds');
  return ms;
}

export function logFilter(q: Record<string, unknown>, maxPage = MAX_PAGE): LogFilter {
  const f: LogFilter = { limit: PAGE };
  const key = one(q, 'key');
  if (key !== undefined) {
    if (!ID.test(key)) throw invalidParam('key', 'must be a key id');
    f.keyId = key;
  }
  const endpoint = one(q, 'endpoint');
  if (endpoint !== undefined) {
    if (!/^[a-z0-9-]+\/[a-z0-9-]+$/.test(endpoint)) throw invalidParam('endpoint', 'must be an endpoint such as tools/ccgen');
    f.endpoint = endpoint;
  }
  const status = one(q, 'status');
  if (status !== undefined) {
    const cls = /^([1-5])xx$/i.exec(status);
    if (cls) f.statusClass = Number(cls[1]);
    else if (/^[1-5]\d\d$/.test(status)) f.status = Number(status);
    else throw invalidParam('status', 'must be a status class (2xx, 4xx, 5xx) or a status such as 404');
  }
  const code = one(q, 'code');
  if (code !== undefined) {
    if (!/^[a-z_]{1,40}$/.test(code)) throw invalidParam('code', 'must be an error code such as upstream_timeout');
    f.code = code;
  }
  const requestId = one(q, 'requestId') ?? one(q, 'request_id');
  if (requestId !== undefined) {
    if (!ID.test(requestId)) throw invalidParam('requestId', 'must be a request id');
    f.requestId = requestId;
  }
  const from = one(q, 'from');
  if (from !== undefined) f.from = time('from', from);
  const to = one(q, 'to');
  if (to !== undefined) f.to = time('to', to);
  const cursor = one(q, 'cursor');
  if (cursor !== undefined) {
    if (!CURSOR.test(cursor)) throw invalidParam('cursor', 'must be the nextCursor of an earlier page');
    f.after = cursor;
  }
  const limit = one(q, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > maxPage)
      throw invalidParam('limit', `must be an integer from 1 to ${maxPage}`);
    f.limit = Number(limit);
  }
  return f;
}
