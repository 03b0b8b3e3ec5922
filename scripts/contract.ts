// `npm run contract`: compares the contract the server builds (scripts/contract-document.ts) with the released
// one (openapi/released.json) and fails on a breaking change unless the major version was raised
// (engine/contract-version.ts). With --release, it records the current document as released and adds its
// changes to CHANGELOG.md under its version (breaking, added, changed).
//
//   tsx scripts/contract.ts [--release]
import fs from 'node:fs';
import path from 'node:path';
import { contractDocument } from './contract-document.js';
import { compareContracts, type Change } from './contract/compare.js';

const root = path.resolve(import.meta.dirname, '..');
const releasedFile = path.join(root, 'openapi', 'released.json');
const changelogFile = path.join(root, 'CHANGELOG.md');

const current = contractDocument('contract');
const released = JSON.parse(fs.readFileSync(releasedFile, 'utf8')) as typeof current;
const result = compareContracts(released, current);

const list = (changes: Change[]) => changes.map((c) => `- ${c.description} (\`${c.at}\`)`).join('\n');
console.log(
  `contract ${result.released} (released) → ${result.current}: ${result.changes.length} changes, ${result.breaking.length} breaking`,
);
if (result.breaking.length) console.log(list(result.breaking));
if (!result.allowed) {
  console.error(
    `Breaking changes need a new major version: raise CONTRACT_VERSION in engine/contract-version.ts above ${result.released.split('.')[0]}.x, then npm run contract -- --release.`,
  );
  process.exit(1);
}

if (process.argv.includes('--release')) {
  if (result.current === result.released) {
    console.error(`${result.current} is released already: raise CONTRACT_VERSION (engine/contract-version.ts) first.`);
    process.exit(1);
  }
  const sections = (['breaking', 'added', 'changed'] as const)
    .map((kind) => [kind, result.changes.filter((c) => c.kind === kind)] as const)
    .filter(([, changes]) => changes.length)
    .map(([kind, changes]) => `### ${kind[0].toUpperCase()}${kind.slice(1)}\n\n${list(changes)}\n`);
  const entry = `## ${result.current} (${new Date().toISOString().slice(0, 10)})\n\n${sections.join('\n') || 'No change to the operations.\n'}`;
  const log = fs.readFileSync(changelogFile, 'utf8');
  const cut = log.indexOf('\n## ');
  fs.writeFileSync(changelogFile, cut < 0 ? `${log.trimEnd()}\n\n${entry}` : `${log.slice(0, cut + 1)}${entry}\n${log.slice(cut + 1)}`);
  fs.writeFileSync(releasedFile, `${JSON.stringify(current, null, 2)}\n`);
  console.log(`released ${result.current}: openapi/released.json and CHANGELOG.md written`);
}
