// The service's OpenAPI document, as a server with this checkout's catalog and adapters builds it. `env` holds
// the upstream keys it is built with (UPSTREAM_<ID>_KEYS): the document says what a configuration takes.
// The contract (openapi/released.json, the SDKs) is the same everywhere: the document of a server holding a
// pooled key for every upstream, where a caller's own `upstream_key` is optional. An SDK made from it lets
// a caller leave that key out, and a server without a pooled key says so with its documented 400.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config.js';
import { loadCatalog } from '../engine/catalog/load.js';
import { openApiDocument } from '../engine/openapi/document.js';
import { accountUsageDocument } from '../features/usage/openapi.js';
import { requestLogDocument } from '../features/request-log/openapi.js';
import { CONTRACT_VERSION } from '../engine/contract-version.js';
import { createUpstreams } from '../engine/upstream/client.js';
import { createLogger } from '../engine/infra/logger.js';

export type ContractDocument = ReturnType<typeof openApiDocument>;

/** `env`: the upstream keys of a configuration; 'contract': the contract's document (every key pooled). */
export function contractDocument(env: Record<string, string | undefined> | 'contract' = 'contract'): ContractDocument {
  const config = loadConfig({});
  const catalog = loadCatalog(config.catalogDir);
  // The adapters a server would load (engine/catalog/registry.ts), found by their files rather than imported.
  const upstream =
    env === 'contract' ? undefined : createUpstreams(catalog.upstreams, env, { userAgent: 'openapi-doc', log: createLogger('silent') });
  const implemented = (adapter: string) => ['ts', 'js'].some((ext) => fs.existsSync(path.join(config.adaptersDir, `${adapter}.${ext}`)));
  return openApiDocument(catalog.endpoints, {
    title: config.serviceName,
    version: CONTRACT_VERSION,
    url: config.publicUrl,
    upstreams: catalog.upstreams,
    pooled: (id) => upstream?.(id).hasKeys ?? true,
    implemented: (e) => implemented(e.adapter),
    parts: [accountUsageDocument(), requestLogDocument()],
  });
}
