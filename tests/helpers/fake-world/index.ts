// Every upstream of catalog/upstreams.yaml faked on loopback at once: one server, each upstream below its
// own path (`/<id>`), answering from the tables of answers.ts with the recorded fixtures of
// tests/fixtures/<id>/. A request no table matches is answered 404 and kept in `unmatched`, so a test can
// say which upstream call it did not expect.
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { fakeUpstream, routes, type FakeRequest, type FakeUpstream } from '../fake-upstream.js';
import { ANSWERS } from './answers.js';

export interface FakeWorld {
  /** UPSTREAM_<ID>_URL of every upstream, and a pooled key where one is needed. */
  env: Record<string, string>;
  /** Requests no table answered, as `<id> METHOD /path`. */
  unmatched: string[];
  close(): Promise<void>;
}

const envId = (id: string) => id.toUpperCase().replace(/-/g, '_');

export async function fakeWorld(): Promise<FakeWorld> {
  const { upstreams, endpoints } = loadCatalog(loadConfig({}).catalogDir);
  // A pooled key where the upstream demands one, or where callers could otherwise bring their own.
  const pooled = new Set([
    ...Object.keys(upstreams).filter((id) => upstreams[id].auth?.required),
    ...endpoints.filter((e) => e.params.upstream_key).map((e) => e.upstream),
  ]);
  const unmatched: string[] = [];
  const routers = new Map(
    Object.keys(upstreams).map((id) => [
      id,
      routes(ANSWERS[id] ?? {}, (r) => {
        unmatched.push(`${id} ${r.method} ${r.path}${r.query.size ? `?${r.query}` : ''}`);
        return { status: 404, json: { message: 'not found' } };
      }),
    ]),
  );
  const server: FakeUpstream = await fakeUpstream((req: FakeRequest) => {
    const [, id, ...rest] = req.path.split('/');
    const router = routers.get(id);
    if (!router) return { status: 404, json: { message: `no upstream ${id}` } };
    return router({ ...req, path: `/${rest.join('/')}` });
  });
  const env: Record<string, string> = {};
  for (const id of Object.keys(upstreams)) {
    env[`UPSTREAM_${envId(id)}_URL`] = `${server.url}/${id}`;
    if (pooled.has(id)) env[`UPSTREAM_${envId(id)}_KEYS`] = `fake-${id}-key`;
  }
  return { env, unmatched, close: () => server.close() };
}
