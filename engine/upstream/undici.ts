// undici's Agent and connector, loaded at the first exchange that needs them (an upstream call, a guarded
// fetch or post), not at boot. Only those two modules, not the package's index: the index also loads fetch,
// WebSocket, the mocks and the caches, and its cookie helpers read globalThis.Headers, which makes Node load
// its own bundled copy of undici too: several times the memory and load time of these two (figures:
// docs/decisions/embedded-memory.md, "What held memory that nothing needed").
// The engine drives an Agent with dispatch() and a handler of its own (whole-answer.ts), so it needs none of
// the index's request API. undici has no exports map (these are files it publishes) and its version is
// pinned; tests/engine/upstream/undici.test.ts checks they are the index's own classes.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { LoadOnce } from '../load-once.js';

export type UndiciParts = Pick<typeof Undici, 'Agent' | 'buildConnector'>;
type RequestApi = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

const require = createRequire(import.meta.url);

const parts = new LoadOnce(async (): Promise<UndiciParts> => ({
  Agent: require('undici/lib/dispatcher/agent.js') as UndiciParts['Agent'],
  buildConnector: require('undici/lib/core/connect.js') as UndiciParts['buildConnector'],
}));
// The index puts request() on every dispatcher; loaded alone, it is called on one.
const requestApi = new LoadOnce(async () => require('undici/lib/api/api-request.js') as RequestApi);

export const undici = (): Promise<UndiciParts> => parts.get();

/** undici's request(): the answer's body a stream, for the exchanges that pass a body on (media links). */
export const streamedRequest = (dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> =>
  requestApi.get().then((request) => request.call(dispatcher, options));
