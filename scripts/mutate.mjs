// npm run mutate [-- <scope> ... [--stryker-option ...]]: runs StrykerJS once per scope of mutate.scopes.js
// (each against its own tests), then prints one table of every mutated file's score from the JSON reports
// in reports/mutation/. Not part of npm test: a full run takes a long while (docs/mutation.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scopes } from '../mutate.scopes.js';

const args = process.argv.slice(2);
const names = Object.keys(scopes);
const chosen = args.filter((a) => names.includes(a));
const passed = args.filter((a) => !names.includes(a));
const run = chosen.length ? chosen : names;

const started = Date.now();
for (const scope of run) {
  console.log(`\n== mutate: ${scope}`);
  const r = spawnSync('stryker', ['run', 'stryker.config.mjs', ...passed], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_SCOPE: scope },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// The scores as Stryker counts them: detected (killed or timed out) over valid mutants, and over covered ones.
/** @type {string[][]} */
const rows = [];
for (const scope of names) {
  const file = path.join('reports/mutation', `${scope}.json`);
  if (!fs.existsSync(file)) continue;
  /** @type {{ files: Record<string, { mutants: { status: string }[] }> }} */
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const [name, { mutants }] of Object.entries(report.files)) {
    const n = (/** @type {string} */ status) => mutants.filter((m) => m.status === status).length;
    const [killed, timeout, survived, noCoverage] = [n('Killed'), n('Timeout'), n('Survived'), n('NoCoverage')];
    const detected = killed + timeout;
    const pct = (/** @type {number} */ a, /** @type {number} */ b) => (b ? ((100 * a) / b).toFixed(2) : '-');
    rows.push([
      name,
      String(killed),
      String(timeout),
      String(survived),
      String(noCoverage),
      pct(detected, detected + survived + noCoverage),
      pct(detected, detected + survived),
    ]);
  }
}
const head = ['file', 'killed', 'timeout', 'survived', 'no cov', 'score %', 'covered %'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (/** @type {string[]} */ cells) => `| ${cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
console.log(`\n${line(head)}\n|${widths.map((w, i) => (i ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`);
for (const r of rows) console.log(line(r));
console.log(`\nmutate: ${run.join(', ')} in ${Math.round((Date.now() - started) / 60_000)} min; reports in reports/mutation/`);
