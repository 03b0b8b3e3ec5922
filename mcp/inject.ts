// Requests into the app in process, with light-my-request: no socket, no network hop, the whole REST
// lifecycle (key, meter, validation, cache, adapter, envelope) exactly as a client over HTTP gets it. API
// paths go to the API server (engine/pipeline/api.ts), which needs nothing but node:http's request and response;
// the rest (hosted files) goes to Express.
//
// Handed an Express app itself, light-my-request re-parents Express's *shared* request and response
// prototypes onto its mock classes, for good: the next request that arrives on a real socket then crashes
// the server (express 5.3, light-my-request 6.8; tests/mcp-inject.test.ts holds the proof). So the app is
// handed over through a twin instead: an object inheriting everything from the app but its `request` and
// `response` prototypes, which are copies of Express's methods laid over light-my-request's classes.
// Express's `app.handle` gives each request the prototypes of `this`, so only injected requests get those.
// (A request that crosses a mounted sub-app gets the real prototypes back; the hosting routes are plain
// routers, so they never do.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { ApiServer } from '../engine/pipeline/api.js';
import inject, { type InjectOptions, type Response as Injected } from 'light-my-request';

export type Injector = (opts: InjectOptions) => Promise<Injected>;
export type { Injected };

/** Express's own entry point (typed privately by @types/express): gives req/res this app's prototypes, then routes. */
type Handled = Express & { handle(req: IncomingMessage, res: ServerResponse): void };

export function injector(app: Express, api: ApiServer): Injector {
  let twin: Handled | undefined;
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    if (api(req, res)) return;
    // The mock classes are only known from an instance: build the twin at the first request.
    twin ??= twinOf(app, Object.getPrototypeOf(req) as object, Object.getPrototypeOf(res) as object);
    twin.handle(req, res);
  };
  return (opts) => inject(dispatch, opts);
}

function twinOf(app: Express, mockRequest: object, mockResponse: object): Handled {
  const over = (mock: object, appProto: object) => {
    const expressMethods = Object.getOwnPropertyDescriptors(Object.getPrototypeOf(appProto) as object);
    return Object.create(Object.create(mock, expressMethods) as object, Object.getOwnPropertyDescriptors(appProto)) as object;
  };
  return Object.create(app, {
    request: { value: over(mockRequest, app.request) },
    response: { value: over(mockResponse, app.response) },
  }) as Handled;
}
