// The Python SDK's own tests (sdks/python/tests/, unittest, the machine's python3 and its standard library
// only) against the embedded server with every upstream faked on loopback (helpers/fake-world): every
// documented example request, the typed 401 of a wrong key, raw media; and, on servers of their own, a 429
// waited out and raw media saved byte for byte.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { testApp, listen } from '../helpers/app.js';
import { fakeWorld } from '../helpers/fake-world/index.js';
import { makeExampleCall, type Doc } from '../helpers/openapi-client.js';
import { sdkExamples } from '../helpers/sdk-examples.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const world = await fakeWorld();
const t = await testApp({ ...world.env, AUTH_FAIL_LIMIT: '100000' });
const server = await listen(t.app);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-sdk-py-'));

afterAll(async () => {
  await server.close();
  await t.close();
  await world.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('the Python SDK’s tests pass against the embedded server, none skipped', async () => {
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  await makeExampleCall(doc, server.url, t.key, () => t.api.requestLog!.flush());
  const examples = sdkExamples(doc).map((e) => ({
    name: e.name,
    group: e.py.group,
    method: e.py.method,
    params: e.pyParams,
    files: e.files,
  }));
  const file = path.join(scratch, 'examples.json');
  fs.writeFileSync(file, JSON.stringify(examples));
  const python = path.join(ROOT, 'sdks', 'python');
  const { stderr } = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
    cwd: python,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PYTHONPATH: path.join(python, 'src'),
      PYTHONDONTWRITEBYTECODE: '1',
      UUA_TEST_BASE_URL: server.url,
      UUA_TEST_KEY: t.key,
      UUA_TEST_EXAMPLES: file,
    },
  }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(err.stderr ?? err.message);
  });
  expect(stderr).toMatch(/^Ran \d+ tests in [\d.]+s\n\nOK\n$/m);
  expect(stderr).not.toMatch(/skipped/);
  expect(stderr).toMatch(/test_every_documented_example_request .* ok/);
}, 120_000);
