// GET /api/v1/account/requests (the caller's calls, filtered, newest first, by cursor) and
// GET /api/v1/account/requests/{requestId} (one call by the id its answer carried). The caller sees the
// calls of its account, every key of it; a personal key of no account its own; a shared key (free,
// anonymous) none. Neither request spends the allowance: the meter only peeks, as for the usage.
import type { Call } from '../../engine/pipeline/call.js';
import { chain, type Fail, type Next, type Step } from '../../engine/pipeline/chain.js';
import type { Route } from '../../engine/pipeline/api.js';
import { authorize } from '../../engine/pipeline/steps/authorize.js';
import { ApiError, invalidParam, notFound } from '../../engine/errors.js';
import { sendData } from '../../engine/pipeline/respond.js';
import type { PlanSpec } from '../../engine/catalog/load.js';
import type { LogRecords } from './records.js';
import { logFilter } from './filter.js';
import { loggedCall } from './entry.js';

export const ACCOUNT_REQUESTS_PATH = '/api/v1/account/requests';

export interface AccountRequestsDeps {
  serviceName: string;
  records: LogRecords;
  plans: Record<string, PlanSpec>;
  identify: Step;
  /** The meter that writes the allowance headers without spending the allowance. */
  peekMeter: Step;
  fail: Fail;
}

/** Whose calls a key reads: its account's, its own for a personal key of no account; a shared key none. */
function ownerOfKey(plans: Record<string, PlanSpec>, id: { plan: string; keyId: string; accountId?: string }): string | undefined {
  if (id.accountId) return id.accountId;
  return plans[id.plan]?.keyedBy === 'key' ? `key:${id.keyId}` : undefined;
}

function ownerOf(deps: AccountRequestsDeps, call: Call): string {
  const id = call.identity;
  if (id?.status !== 'ok') throw new ApiError('invalid_key', 'Invalid apikey');
  const owner = ownerOfKey(deps.plans, id);
  if (owner === undefined)
    throw new ApiError('forbidden', 'The request log is kept for personal keys: a shared key (free, anonymous) has none to read');
  return owner;
}

function listHandler(deps: AccountRequestsDeps) {
  return (call: Call, next: Next) => {
    let owner: string;
    let filter: ReturnType<typeof logFilter>;
    try {
      owner = ownerOf(deps, call);
      filter = logFilter(call.query);
    } catch (err) {
      return next(err);
    }
    deps.records.list({ ...filter, owner }).then(({ rows, more }) => {
      const items = rows.map(loggedCall);
      const nextCursor = more ? rows[rows.length - 1].id : null;
      sendData(call, deps.serviceName, 'request-log', { items, nextCursor }, false);
    }, next);
  };
}

function oneHandler(deps: AccountRequestsDeps) {
  return (call: Call, next: Next) => {
    let owner: string;
    let requestId: string;
    try {
      owner = ownerOf(deps, call);
      requestId = decodeURIComponent(call.path.slice(ACCOUNT_REQUESTS_PATH.length + 1));
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(requestId)) throw invalidParam('requestId', 'must be the requestId of an answer');
    } catch (err) {
      return next(err instanceof URIError ? invalidParam('requestId', 'must be the requestId of an answer') : err);
    }
    deps.records.list({ owner, requestId, limit: 1 }).then(({ rows }) => {
      if (!rows.length) return next(notFound(`No call of yours has the request id ${requestId} (calls are kept for your plan's days)`));
      sendData(call, deps.serviceName, 'request-log', loggedCall(rows[0]), false);
    }, next);
  };
}

/** The two routes (server/api-routes.ts adds them beside the catalog's): the list, and one call under `/*`. */
export function accountRequestsRoutes(deps: AccountRequestsDeps): [string, Route][] {
  const steps = [deps.identify, deps.peekMeter, authorize];
  return [
    [ACCOUNT_REQUESTS_PATH, { endpoint: 'account/requests', method: 'GET', run: chain([...steps, listHandler(deps)], deps.fail) }],
    [`${ACCOUNT_REQUESTS_PATH}/*`, { endpoint: 'account/request', method: 'GET', run: chain([...steps, oneHandler(deps)], deps.fail) }],
  ];
}
