// A typed client generated from the running service's document at test time, as a user would make one:
// openapi-typescript writes the types from GET /openapi.json, openapi-fetch is the client, tsc compiles a
// small program against them, and the compiled program calls an embedded GET and POST endpoint. A program
// that sends a parameter of the wrong type must not compile: the types are the document's. Defaults do
// not make a request field required (--default-non-nullable false: a default is the server's to apply).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { testApp, listen, type TestApp } from '../../helpers/app.js';
import { ROOT } from '../../helpers/paths.js';

const run = promisify(execFile);
const root = ROOT;
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

// Below node_modules, so that the program finds openapi-fetch and stays out of the project's own sources.
let dir: string;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;

const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [baseUrl, key] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': key } });
const get = await client.GET('/api/v1/tools/ccgen', { params: { query: { bin: '457173' } } });
const post = await client.POST('/api/v1/cloud-storage/paste-host', { body: { paste: 'echo hello', format: 'bash', private: 1 } });
// Typed answers: data.data is the endpoint's documented data.
const cards: string[] | undefined = get.data?.data.cards;
const pasteUrl: string | undefined = post.data?.data.url;
console.log(JSON.stringify({ get: { status: get.response.status, cards }, post: { status: post.response.status, pasteUrl, error: post.error } }));
`;

const WRONG = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
await client.GET('/api/v1/tools/ccgen', { params: { query: { bin: 457173 } } });
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: true,
    outDir: 'out',
    types: ['node'],
  },
  files: ['client.ts'],
};

async function compile(program: string): Promise<{ ok: boolean; output: string }> {
  fs.writeFileSync(path.join(dir, 'client.ts'), program);
  try {
    await run(bin('tsc'), ['-p', dir], { cwd: dir });
    return { ok: true, output: '' };
  } catch (err) {
    return { ok: false, output: String((err as { stdout?: string }).stdout) };
  }
}

beforeAll(async () => {
  t = await testApp();
  server = await listen(t.app);
  fs.mkdirSync(path.join(root, 'node_modules', '.cache'), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, 'node_modules', '.cache', 'openapi-client-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await run(
    bin('openapi-typescript'),
    [`${server.url}/openapi.json`, '-o', path.join(dir, 'api.d.ts'), '--default-non-nullable', 'false'],
    { cwd: dir },
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the generated client compiles and calls an embedded GET and POST endpoint', async () => {
  const compiled = await compile(PROGRAM);
  expect(compiled.output).toBe('');
  expect(compiled.ok).toBe(true);
  const { stdout } = await run(process.execPath, [path.join(dir, 'out', 'client.js'), server.url, t.key], { cwd: dir });
  const out = JSON.parse(stdout);
  expect(out.get.status).toBe(200);
  expect(out.get.cards.length).toBeGreaterThan(0);
  for (const card of out.get.cards) expect(card).toMatch(/^457173\d{6,13}$/);
  expect(out.post.status).toBe(200);
  expect(out.post.pasteUrl).toMatch(/^http:\/\/127\.0\.0\.1:3999\//);
}, 60_000);

test('a parameter of the wrong type does not compile', async () => {
  const compiled = await compile(WRONG);
  expect(compiled.ok).toBe(false);
  expect(compiled.output).toMatch(/client\.ts\(5,.*TS2322/);
}, 60_000);
