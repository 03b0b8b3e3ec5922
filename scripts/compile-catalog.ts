// Compiles catalog/ into dist/catalog.compiled.json (engine/catalog/compiled.ts): the last step of
// `npm run build`, and what to run after editing the catalog of an installed tree so that its boots skip
// the compile again.
//
//   node dist/scripts/compile-catalog.js [catalog dir]
import { COMPILED_FILE, writeCompiled } from '../engine/catalog/compiled.js';
import { loadConfig } from '../server/config.js';

const dir = process.argv[2] ?? loadConfig(process.env).catalogDir;
const started = performance.now();
await writeCompiled(dir);
console.log(`compiled ${dir} into ${COMPILED_FILE} in ${Math.round(performance.now() - started)} ms`);
