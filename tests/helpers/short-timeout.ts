// The slow-upstream case (→ 504) without waiting out an upstream's real timeout (10-65 s in
// catalog/upstreams.yaml, and no environment override): a hand-made adapter context whose one upstream
// client is the engine's own, built from the catalog entry with a short timeout and no retries, pointed
// at a loopback fake. The adapter is then called directly with already-validated params.
import pino from 'pino';
import { loadCatalog } from '../../engine/catalog.js';
import { loadConfig } from '../../engine/config.js';
import { createUpstreams, envId } from '../../engine/upstream.js';
import type { AdapterContext } from '../../engine/types.js';

const upstreams = loadCatalog(loadConfig({}).catalogDir).upstreams;

export function shortTimeoutCtx(upstreamId: string, url: string, timeout = '300ms', extra: Partial<AdapterContext> = {}): AdapterContext {
  const cfg = upstreams[upstreamId];
  if (!cfg) throw new Error(`no upstream ${upstreamId} in catalog/upstreams.yaml`);
  const log = pino({ level: 'silent' });
  const upstream = createUpstreams(
    { [upstreamId]: { ...cfg, timeout, retries: 0 } },
    { [`UPSTREAM_${envId(upstreamId)}_URL`]: url },
    { userAgent: 'UnifiedUtilityAPI-test/0.0.0 (+http://127.0.0.1)', log },
  );
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
    ...extra,
  };
}
