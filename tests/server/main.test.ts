// The entry point of `npm start` as an operator runs it: it listens, its log lines reach stdout within a
// second or so even on a quiet server (the buffer is flushed periodically), and SIGTERM ends it cleanly
// with every line written. Runs the build that `npm test` makes first (dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, waitFor } from '../helpers/server-process.js';

test('logs reach stdout promptly on a quiet server, and SIGTERM flushes and exits 0', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-server-'));
  const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const res = await fetch(`${server.url}/api/v1/tools/ccgen?apikey=anonymous&bin=457173`, {
    headers: { 'X-Request-Id': 'server-test-1' },
  });
  expect(res.status).toBe(200);
  const logged = () => server.lines().some((l) => l.requestId === 'server-test-1');
  await waitFor(logged, 3_000, 'the access-log line', () => `stdout so far: ${server.out().slice(0, 500)}`);
  const line = server.lines().find((l) => l.requestId === 'server-test-1')!;
  expect(line).toMatchObject({ msg: 'request', endpoint: 'tools/ccgen', method: 'GET', status: 200, keyId: 'anonymous' });
  expect(server.out()).not.toContain('apikey=anonymous');

  expect(await server.stop('SIGTERM')).toBe(0);
  expect(server.lines().some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
});

test('at boot, a warning when /metrics is public on a non-loopback address, and none on loopback or with a token', async () => {
  const warned = (lines: Array<Record<string, unknown>>) => lines.some((l) => /metrics is public/.test(String(l.msg)));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-server-'));
  const open = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '0.0.0.0' });
  await waitFor(
    () => warned(open.lines()),
    3_000,
    'the warning',
    () => open.out().slice(0, 800),
  );
  expect(open.lines().find((l) => /metrics is public/.test(String(l.msg)))).toMatchObject({ level: 40, host: '0.0.0.0' });
  expect(await open.stop('SIGTERM')).toBe(0);
  const quietEnvs: Array<Record<string, string>> = [{ HOST: '127.0.0.1' }, { HOST: '0.0.0.0', METRICS_TOKEN: 'a-metrics-token' }];
  for (const env of quietEnvs) {
    const quiet = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env });
    expect(await quiet.stop('SIGTERM')).toBe(0);
    expect(warned(quiet.lines())).toBe(false);
  }
});

test('the server never loads Node’s bundled undici (an ES import of node:http would, through its WebSocket getters)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-server-'));
  // Asked by a signal, the server's process prints the built-in modules it has loaded as one JSON line.
  const tell = path.join(dataDir, 'tell-builtins.cjs');
  fs.writeFileSync(
    tell,
    "process.on('SIGUSR2', () => process.stdout.write(JSON.stringify({ builtins: process.moduleLoadList }) + '\\n'));",
  );
  const server = await startServer({ DATA_DIR: dataDir, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${tell}` });
  const warm = async () => ((await (await fetch(`${server.url}/health`)).json()) as { warming?: unknown }).warming === undefined;
  for (let until = Date.now() + 15_000; !(await warm()); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > until) throw new Error('the server did not finish warming within 15 s');
  expect((await fetch(`${server.url}/api/v1/tools/ccgen?apikey=anonymous&bin=457173`)).status).toBe(200);
  expect((await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).status).toBe(200);
  server.child.kill('SIGUSR2');
  const told = () => server.lines().find((l) => Array.isArray(l.builtins));
  await waitFor(() => told() !== undefined, 3_000, 'the list of built-in modules');
  const builtins = told()!.builtins as string[];
  expect(builtins).toContain('NativeModule http'); // the list is the one asked for
  expect(builtins.filter((m) => /undici/.test(m))).toEqual([]);
  expect(await server.stop('SIGTERM')).toBe(0);
});
