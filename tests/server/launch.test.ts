// What an operator sees when the server cannot start: one line naming the cause, and exit code 1 — for an
// older Node (before any module that needs Node 24 is linked), a port held by another process, and a bad
// setting.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const entry = path.join(ROOT, 'dist', 'server', 'launch.js');
/** The machine's own node (20 on this kind of machine), which is not the project's. */
const olderNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
  if (!fs.existsSync(p)) return false;
  const v = spawnSync(p, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return Number(v.slice(1).split('.')[0]) < 24;
});

const run = (node: string, env: Record<string, string>) =>
  spawnSync(node, [entry], {
    env: {
      ...process.env,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'uua-launch-')),
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });

const oneLine = (text: string) => text.trim().split('\n');

(olderNode ? test : test.skip)('an older Node stops with one line naming the Node it needs, and exit code 1', () => {
  const r = run(olderNode!, { PORT: '0' });
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([
    expect.stringMatching(/^Cannot start: Node 2\d\.[\d.]+; the server needs Node 24 \(run it with `npm start`/),
  ]);
});

test('a port in use: one line saying so, and exit code 1', async () => {
  const holder = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => holder.once('listening', r));
  const { port } = holder.address() as net.AddressInfo;
  try {
    const r = run(process.execPath, { PORT: String(port) });
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toEqual([`Cannot start: port ${port} on 127.0.0.1 is in use by another process (set PORT to another one)`]);
  } finally {
    holder.close();
  }
});

test('a bad setting: one line naming it, and exit code 1', () => {
  const r = run(process.execPath, { PORT: 'eighty' });
  expect(r.status).toBe(1);
  expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^Cannot start: .*PORT/)]);
});
