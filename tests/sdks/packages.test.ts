// The SDKs as their users get them: `npm pack` of sdks/typescript installed into a scratch project, whose
// TypeScript program compiles against the package's types and calls the embedded server; and the Python
// sdist and wheel (sdks/python/build_backend.py, standard library only) installed with pip, offline, each
// into a folder of its own, and used from there; the README's quick start in each language, against them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { testApp, listen } from '../helpers/app.js';
import { ROOT } from '../helpers/paths.js';
import { sample, sdkNames } from '../../portal/shared/snippets.js';

const run = promisify(execFile);
const t = await testApp();
const server = await listen(t.app);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-sdk-packages-'));
// npm and the compiler as `npm test` finds them: the project's own first.
const env = {
  ...process.env,
  PATH: `${path.join(ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
  npm_config_update_notifier: 'false',
};
const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi', 'released.json'), 'utf8')) as { info: { version: string } }).info
  .version;

afterAll(async () => {
  await server.close();
  await t.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The reference's (/docs) SDK sample of tools/ccgen in one language, with this server and its key. */
const docsSample = (lang: 'sdk-typescript' | 'sdk-python') =>
  sample(lang, {
    method: 'GET',
    url: `${server.url}/api/v1/tools/ccgen`,
    params: { bin: '457173' },
    key: t.key,
    sdk: sdkNames('/api/v1/tools/ccgen', ['bin']),
  });

/** The README's quick start in one language: its fenced block that calls dl-d. */
const readmeSample = (lang: 'ts' | 'python') => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(new RegExp('```' + lang + '\\n([^`]+)```', 'g'))].map((m) => m[1]).find((b) => /dl_?[dD]\(/.test(b));
  if (!block) throw new Error(`README.md has no ${lang} sample calling dl-d`);
  return block;
};

const PROGRAM = `import { ApiError, createClient, CONTRACT_VERSION } from 'unified-utility-api';

const [baseUrl, key] = process.argv.slice(2);
const api = createClient({ apiKey: key, baseUrl });
const answer = await api.tools.ccgen({ bin: '457173' });
// Typed: data is the endpoint's documented data.
const cards: string[] = answer.data.cards;
let wrong: { status: number; code: string; requestId?: string } | undefined;
try {
  await createClient({ apiKey: 'no-such-key', baseUrl }).tools.ccgen({ bin: '457173' });
} catch (e) {
  if (e instanceof ApiError) wrong = { status: e.status, code: e.code, requestId: e.requestId };
}
console.log(JSON.stringify({ version: CONTRACT_VERSION, cards, wrong }));
`;

test('npm pack makes a package a project installs, compiles against and calls the server with', async () => {
  const { stdout } = await run('npm', ['pack', '--pack-destination', scratch], { cwd: path.join(ROOT, 'sdks', 'typescript'), env });
  const tarball = path.join(scratch, stdout.trim().split('\n').pop()!);
  expect(path.basename(tarball)).toBe(`unified-utility-api-${version}.tgz`);
  const project = path.join(scratch, 'bot');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'bot', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], { cwd: project, env });
  fs.writeFileSync(path.join(project, 'bot.ts'), PROGRAM);
  // The README's quick start compiles against the package as published.
  const sample = readmeSample('ts');
  expect(sample.trim().split('\n').length).toBeLessThanOrEqual(5);
  fs.writeFileSync(path.join(project, 'readme.ts'), sample);
  fs.writeFileSync(path.join(project, 'docs.ts'), docsSample('sdk-typescript'));
  const tsconfig = {
    compilerOptions: {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      types: ['node'],
    },
    files: ['bot.ts', 'readme.ts', 'docs.ts'],
  };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  await run('tsc', ['-p', project], { cwd: project, env }).catch((e: { stdout: string }) => {
    throw new Error(e.stdout);
  });
  // On this Node, and on the machine's own when it is another (Debian's, 20 here): the package says Node 20+.
  const nodes = [
    process.execPath,
    ...['/usr/bin/node'].filter((n) => fs.existsSync(n) && fs.realpathSync(n) !== fs.realpathSync(process.execPath)),
  ];
  for (const node of nodes) {
    const out = await run(node, [path.join(project, 'bot.js'), server.url, t.key], { cwd: project });
    const result = JSON.parse(out.stdout) as {
      version: string;
      cards: string[];
      wrong: { status: number; code: string; requestId: string };
    };
    expect(result.version).toBe(version);
    expect(result.cards.length).toBeGreaterThan(0);
    for (const card of result.cards) expect(card).toMatch(/^457173\d{6,13}$/);
    expect(result.wrong).toMatchObject({ status: 401, code: 'invalid_key' });
    expect(result.wrong.requestId).toMatch(/^[0-9a-f-]{36}$/);
  }
  // The reference's SDK sample, as a reader copies it: it runs and prints the cards.
  expect((await run(process.execPath, [path.join(project, 'docs.js')], { cwd: project })).stdout).toMatch(/457173\d{6,13}/);
}, 120_000);

const PYTHON = `import json, sys
from unified_utility_api import ApiError, Client, CONTRACT_VERSION
import unified_utility_api

base_url, key = sys.argv[1:3]
answer = Client(key, base_url=base_url).tools.ccgen(bin="457173")
try:
    Client("no-such-key", base_url=base_url).tools.ccgen(bin="457173")
    wrong = None
except ApiError as e:
    wrong = {"status": e.status, "code": e.code, "request_id": e.request_id}
print(json.dumps({"version": CONTRACT_VERSION, "at": unified_utility_api.__file__, "cards": answer["data"]["cards"], "wrong": wrong}))

# The README's quick start, against a transport that answers what dl-d documents instead of calling out.
class Answering:
    def call(self, method, path, params, body_type, path_names):
        assert (method, path) == ("GET", "/api/v1/downloaders/dl-d"), (method, path)
        assert params["for"] == "telegram" and params["url"].startswith("https://"), params
        return {"data": {"medias": [{"url": "http://localhost:3000/media/x"}]}}

Client.__init__ = lambda self, *a, **k: super(Client, self).__init__(Answering())
exec(open(sys.argv[3]).read())
`;

test('the Python sdist and wheel install offline with pip, and the installed package calls the server', async () => {
  const dist = path.join(scratch, 'py-dist');
  const { stdout } = await run('python3', [path.join(ROOT, 'sdks', 'python', 'build_backend.py'), dist]);
  const [sdist, wheel] = stdout.trim().split('\n');
  expect(path.basename(sdist)).toBe(`unified_utility_api-${version}.tar.gz`);
  expect(path.basename(wheel)).toBe(`unified_utility_api-${version}-py3-none-any.whl`);
  fs.writeFileSync(path.join(scratch, 'bot.py'), PYTHON);
  const sample = readmeSample('python');
  expect(sample.trim().split('\n').length).toBeLessThanOrEqual(5);
  fs.writeFileSync(path.join(scratch, 'readme.py'), sample);
  fs.writeFileSync(path.join(scratch, 'docs.py'), docsSample('sdk-python'));
  const pipEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  for (const [name, archive, extra] of [
    ['from-wheel', wheel, []],
    ['from-sdist', sdist, ['--no-build-isolation']],
  ] as const) {
    const target = path.join(scratch, name);
    await run('python3', ['-m', 'pip', 'install', '--no-index', ...extra, '--target', target, archive], { cwd: scratch, env: pipEnv });
    const out = await run('python3', [path.join(scratch, 'bot.py'), server.url, t.key, path.join(scratch, 'readme.py')], {
      cwd: scratch,
      env: { ...pipEnv, PYTHONPATH: target },
    });
    const [line, printed] = out.stdout.trim().split('\n');
    expect(printed).toBe('http://localhost:3000/media/x');
    const result = JSON.parse(line) as { version: string; at: string; cards: string[]; wrong: { status: number; code: string } };
    expect(result.at.startsWith(target)).toBe(true);
    expect(result.version).toBe(version);
    expect(result.cards.length).toBeGreaterThan(0);
    expect(result.wrong).toMatchObject({ status: 401, code: 'invalid_key' });
    // The reference's SDK sample, as a reader copies it: it runs and prints the cards.
    const docs = await run('python3', [path.join(scratch, 'docs.py')], { cwd: scratch, env: { ...pipEnv, PYTHONPATH: target } });
    expect(docs.stdout).toMatch(/457173\d{6,13}/);
  }
}, 120_000);
