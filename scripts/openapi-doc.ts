// Writes the service's OpenAPI document to a file, for the linters of `npm run lint:openapi` (and anyone who
// wants the document without starting the service). It is the document GET /openapi.json serves.
//
//   node dist/scripts/openapi-doc.js <out.json>
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config.js';
import { loadCatalog } from '../engine/catalog/load.js';
import { openApiDocument } from '../engine/openapi/document.js';
import { accountUsageDocument } from '../features/usage/openapi.js';
import { requestLogDocument } from '../features/request-log/openapi.js';
import { VERSION } from '../server/app.js';
import { createUpstreams } from '../engine/upstream/client.js';
import { createLogger } from '../engine/infra/logger.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: node dist/scripts/openapi-doc.js <out.json>');
  process.exit(2);
}
const config = loadConfig({});
const catalog = loadCatalog(config.catalogDir);
// The adapters a server would load (engine/catalog/registry.ts), found by their files rather than imported.
// This shell's UPSTREAM_<ID>_KEYS, read as the server reads them: the document says what this configuration takes.
const upstream = createUpstreams(catalog.upstreams, process.env, { userAgent: 'openapi-doc', log: createLogger('silent') });
const implemented = (adapter: string) => ['ts', 'js'].some((ext) => fs.existsSync(path.join(config.adaptersDir, `${adapter}.${ext}`)));
const doc = openApiDocument(catalog.endpoints, {
  title: config.serviceName,
  version: VERSION,
  url: config.publicUrl,
  upstreams: catalog.upstreams,
  pooled: (id) => upstream(id).hasKeys,
  implemented: (e) => implemented(e.adapter),
  parts: [accountUsageDocument(), requestLogDocument()],
});
fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`${out}: ${Object.keys(doc.paths).length} paths`);
