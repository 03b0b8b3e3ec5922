// The entry point of `npm start` as an operator runs it: it listens, its log lines reach stdout within a
// second or so even on a quiet server (the buffer is flushed periodically), and SIGTERM ends it cleanly
// with every line written. Runs the build that `npm test` makes first (dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../helpers/paths.js';

const root = ROOT;
const entry = path.join(root, 'dist', 'server', 'main.js');

async function freePort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
});

test('logs reach stdout promptly on a quiet server, and SIGTERM flushes and exits 0', async () => {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-server-'));
  let out = '';
  const lines = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const waitFor = async (check: () => boolean, ms: number, what: string) => {
    const until = Date.now() + ms;
    while (!check()) {
      if (Date.now() > until) throw new Error(`${what} did not appear within ${ms} ms; stdout so far: ${out.slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // The free port is found here and released for the server to take: in between, another process (the
  // other jest worker opens ports all the time) may take it first. The server then dies of EADDRINUSE
  // and is started again on another free port; any other way of failing to start fails the test.
  let port: number;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    out = '';
    let err = '';
    const c = spawn(process.execPath, [entry], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    c.stdout.on('data', (chunk: Buffer) => {
      if (child === c) out += chunk.toString();
    });
    c.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    let exited = false;
    const exit = new Promise<void>((r) =>
      c.once('exit', () => {
        exited = true;
        r();
      }),
    );
    // Nothing but the start: the listening line alone is far below the 4 KiB the buffer gathers.
    await waitFor(() => /listening/.test(out) || exited, 15_000, 'the listening line');
    if (!exited) break;
    await exit;
    if (!/EADDRINUSE/.test(err) || attempt === 3) throw new Error(`the server did not start: ${err.slice(0, 1000)}`);
  }
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/tools/ccgen?apikey=anonymous&bin=457173`, {
    headers: { 'X-Request-Id': 'server-test-1' },
  });
  expect(res.status).toBe(200);
  await waitFor(() => lines().some((l) => l.requestId === 'server-test-1'), 3_000, 'the access-log line');
  const line = lines().find((l) => l.requestId === 'server-test-1')!;
  expect(line).toMatchObject({ msg: 'request', endpoint: 'tools/ccgen', method: 'GET', status: 200, keyId: 'anonymous' });
  expect(out).not.toContain('apikey=anonymous');

  const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(lines().some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
});
