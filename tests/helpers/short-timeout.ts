// The slow-upstream case (→ 504) without waiting out an upstream's real timeout (10-65 s in
// catalog/upstreams.yaml): a hand-made adapter context whose one upstream client is the engine's own,
// built from the catalog entry with no retries and the operator's UPSTREAM_<ID>_TIMEOUT override, pointed
// at a loopback fake. The adapter is then called directly with already-validated params. (Through HTTP the
// same is testApp({ UPSTREAM_<ID>_URL, UPSTREAM_<ID>_TIMEOUT }); the retries of a GET would double the wait.)
import pino from 'pino';
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { createUpstreams, envId } from '../../engine/upstream/client.js';
import type { AdapterContext } from '../../engine/types.js';
import { createMemo } from '../../engine/upstream/memo.js';

const upstreams = loadCatalog(loadConfig({}).catalogDir).upstreams;

export function shortTimeoutCtx(upstreamId: string, url: string, timeout = '300ms', extra: Partial<AdapterContext> = {}): AdapterContext {
  const cfg = upstreams[upstreamId];
  if (!cfg) throw new Error(`no upstream ${upstreamId} in catalog/upstreams.yaml`);
  const log = pino({ level: 'silent' });
  const upstream = createUpstreams(
    { [upstreamId]: { ...cfg, retries: 0 } },
    { [`UPSTREAM_${envId(upstreamId)}_URL`]: url, [`UPSTREAM_${envId(upstreamId)}_TIMEOUT`]: timeout },
    { userAgent: 'UnifiedUtilityAPI-test/0.0.0 (+http://127.0.0.1)', log },
  );
  const memo = createMemo();
  return {
    endpoint: 'test/short-timeout',
    options: {},
    files: {},
    clientIp: '203.0.113.7',
    publicUrl: 'http://127.0.0.1:3999',
    signal: new AbortController().signal,
    log,
    upstream,
    fetchUrl: () => Promise.reject(new Error('fetchUrl is not available in a short-timeout context')),
    blobs: undefined as unknown as AdapterContext['blobs'],
    // As the engine's context does: the memo's loads get the (unscoped) clients.
    memo: (key, ttl, load) => memo(key, ttl, () => load(extra.upstream ?? upstream)),
    ...extra,
  };
}

/** The adapter, called on such a context (the same arguments), fails as a slow upstream does: a 504. */
export async function expectUpstreamTimeout(
  call: (ctx: AdapterContext) => Promise<unknown>,
  ...ctx: Parameters<typeof shortTimeoutCtx>
): Promise<void> {
  await expect(call(shortTimeoutCtx(...ctx))).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
}
