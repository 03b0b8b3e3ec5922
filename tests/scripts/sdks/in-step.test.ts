// The committed SDKs are what the current contract document generates (`npm run sdks`): regenerated into a
// scratch folder and compared file by file; and each package's version is the contract's.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GENERATED } from '../../../scripts/sdks/generated-files.js';
import { CONTRACT_VERSION } from '../../../engine/contract-version.js';
import { ROOT } from '../../helpers/paths.js';

const run = promisify(execFile);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-sdks-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Every file under `root`'s generated paths, relative to root. */
function filesOf(root: string): string[] {
  return GENERATED.flatMap((entry) => {
    const at = path.join(root, entry);
    if (!fs.existsSync(at)) return [];
    if (!fs.statSync(at).isDirectory()) return [entry];
    return (fs.readdirSync(at, { recursive: true }) as string[])
      .map((f) => path.join(entry, f))
      .filter((f) => fs.statSync(path.join(root, f)).isFile());
  }).sort();
}

test('the committed SDKs are what npm run sdks generates from the current document', async () => {
  await run(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'scripts', 'sdks.ts'), '--out', scratch], { cwd: ROOT });
  const committed = path.join(ROOT, 'sdks');
  const made = filesOf(scratch);
  expect(made.length).toBeGreaterThan(10);
  // On a difference: run `npm run sdks` and commit what it writes.
  expect(filesOf(committed)).toEqual(made);
  for (const file of made)
    expect(`${file}:\n${fs.readFileSync(path.join(committed, file), 'utf8')}`).toBe(
      `${file}:\n${fs.readFileSync(path.join(scratch, file), 'utf8')}`,
    );
}, 60_000);

test('each SDK’s version is the contract’s', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'sdks', 'typescript', 'package.json'), 'utf8')) as { version: string };
  expect(pkg.version).toBe(CONTRACT_VERSION);
  expect(fs.readFileSync(path.join(ROOT, 'sdks', 'python', 'src', 'unified_utility_api', '_version.py'), 'utf8')).toContain(
    `CONTRACT_VERSION = "${CONTRACT_VERSION}"`,
  );
});
