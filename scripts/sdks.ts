// `npm run sdks`: regenerates both SDKs from the contract's OpenAPI document (scripts/contract-document.ts):
// sdks/typescript/src/gen/ (@hey-api/openapi-ts), src/endpoints.gen.ts and src/version.gen.ts, the package's
// version, and sdks/python/src/unified_utility_api/_endpoints.py and _version.py (our emitter).
//
//   tsx scripts/sdks.ts [--out <dir>]   (--out: write the generated files under <dir> instead, to compare)
import fs from 'node:fs';
import path from 'node:path';
import { contractDocument } from './contract-document.js';
import { generateSdks } from './sdks/generate.js';

const at = process.argv.indexOf('--out');
const root = at > 0 ? path.resolve(process.argv[at + 1]) : path.resolve(import.meta.dirname, '..', 'sdks');
const doc = contractDocument('contract');
const written = await generateSdks(doc, root);
if (at < 0) {
  // The package's version follows the contract's (written only in place: --out compares the generated files).
  const manifest = path.join(root, 'typescript', 'package.json');
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  pkg.version = doc.info.version;
  fs.writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
}
console.log(`${written.length} files from ${Object.keys(doc.paths).length} paths, contract ${doc.info.version}, under ${root}`);
