// The API's door: requests under /api/ are served by node:http directly, one Map look-up to the chain of
// steps of their route; everything else is left to Express (the portal, MCP, hosted files, /health).
// Express's per-request set-up (prototypes, router, lazy getters) cost about as much as any one of our
// steps, and the steps need little of it: the path, the query and the client address (engine/pipeline/call.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseurl from 'parseurl';
import { Call, type CallSite } from './call.js';
import { badInput } from '../errors.js';
import { sendError } from './respond.js';
import { plainTarget } from './request-line.js';

export interface Route {
  /** The name the call goes by in logs and metrics (the endpoint id). */
  endpoint: string;
  method: string;
  run(call: Call): void;
}

/** Serves an API request and says true, or says false for any other path. */
export type ApiServer = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * `routes` by path; a path ending `/*` answers every path one segment below it (read from call.path), looked
 * up only when no path matched. `unmatched` serves unknown paths and wrong methods under /api/ (identified and metered like the rest). */
export function apiServer(routes: Map<string, Route>, unmatched: Route, site: CallSite): ApiServer {
  return (req, res) => {
    // A plain /api/ target is cut at its `?` (engine/pipeline/request-line.ts); any other is parsed as Express
    // parses it (parseurl keeps it on the request, so a fall-through parses it once).
    const raw = req.url ?? '';
    let target = raw.startsWith('/api/') ? plainTarget(raw) : undefined;
    if (target === undefined) {
      let url: ReturnType<typeof parseurl>;
      try {
        url = parseurl(req);
      } catch {
        // A request line Node took but no URL parser reads (`GET http://[::1/api`): Express would answer it
        // with an HTML page, so it is refused here, in the envelope.
        sendError(res, badInput('Malformed request URL'));
        return true;
      }
      if (typeof url?.pathname !== 'string') return false;
      target = { pathname: url.pathname, search: url.query as string | null };
    }
    const path = target.pathname;
    if (!path.startsWith('/api/')) return false;
    // A trailing slash names the same endpoint (`/api/v1/tools/ccgen/`): served as it, not redirected, so a
    // POST keeps its body.
    const found =
      routes.get(path) ??
      (path.endsWith('/') ? routes.get(path.replace(/\/+$/, '')) : routes.get(`${path.slice(0, path.lastIndexOf('/'))}/*`));
    const route =
      found !== undefined && (found.method === req.method || (found.method === 'GET' && req.method === 'HEAD')) ? found : unmatched;
    route.run(new Call(route.endpoint, path, target.search, req, res, site));
    return true;
  };
}
