// Writes the service's OpenAPI document to a file, for the linters of `npm run lint:openapi` (and anyone who
// wants the document without starting the service). It is the document GET /openapi.json serves, with this
// shell's UPSTREAM_<ID>_KEYS read as the server reads them; with --contract, the contract's (scripts/contract-document.ts).
//
//   node dist/scripts/openapi-doc.js [--contract] <out.json>
import fs from 'node:fs';
import { contractDocument } from './contract-document.js';

const args = process.argv.slice(2);
const contract = args.includes('--contract');
const out = args.find((a) => !a.startsWith('--'));
if (!out) {
  console.error('usage: node dist/scripts/openapi-doc.js [--contract] <out.json>');
  process.exit(2);
}
const doc = contractDocument(contract ? 'contract' : process.env);
fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`${out}: ${Object.keys(doc.paths).length} paths`);
