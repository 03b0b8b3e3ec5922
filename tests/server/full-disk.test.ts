// The server as `npm start` runs it, on a DATA_DIR that really runs out of space: a 16 MB tmpfs filled by a
// file, where the machine lets this test mount one (root on Linux; elsewhere tests/engine/store/storage-full.test.ts
// makes SQLite's own SQLITE_FULL in process). While full: a paste answers 507 `storage_full`, a GET endpoint
// 200, /health says degraded; the room given back, the counts made meanwhile are written and a restart
// continues them; full again, a SIGTERM that cannot write its counts exits 1 and says how many it lost.
// Runs the build `npm test` makes first (dist/).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const KEY = 'full-disk-enterprise-key-001';
const LIMIT = 50_000; // the enterprise plan's allowance

function mountTmpfs(dir: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-full-disk-'));
const dataDir = path.join(root, 'data');
fs.mkdirSync(dataDir);
const mounted = mountTmpfs(dataDir);
if (!mounted) console.warn('full-disk test skipped: this machine does not let it mount a tmpfs (the in-process test covers SQLITE_FULL)');
const maybe = mounted ? test : test.skip;

let server: ServerProcess | undefined;
afterAll(async () => {
  if (server?.child.exitCode === null) await server.stop('SIGKILL');
  if (mounted) spawnSync('umount', [dataDir]);
  fs.rmSync(root, { recursive: true, force: true });
});

const filler = path.join(dataDir, 'filler');
/** Writes `filler` until the disk says no more. */
function fill() {
  const fd = fs.openSync(filler, 'a');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

const keysFile = path.join(root, 'keys.yaml');
fs.writeFileSync(keysFile, `- { key: ${KEY}, plan: enterprise, name: full disk }\n`);
const start = () => startServer({ DATA_DIR: dataDir, API_KEYS_FILE: keysFile, LOG_LEVEL: 'info', DRAIN_DELAY: '0s' });
const ccgen = (s: ServerProcess) => fetch(`${s.url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': KEY } });
const paste = (s: ServerProcess) =>
  fetch(`${s.url}/api/v1/cloud-storage/paste-host`, {
    method: 'POST',
    headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ paste: 'x'.repeat(20_000) }),
  });
const health = async (s: ServerProcess) => (await (await fetch(`${s.url}/health`)).json()) as { status: string; storage: string };
async function until(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

maybe(
  'full: 507 for what stores, 200 for what does not, counts kept once there is room; full at SIGTERM: exit 1 naming the loss',
  async () => {
    let s = (server = await start());
    expect((await ccgen(s)).status).toBe(200);
    expect((await paste(s)).status).toBe(200);

    fill();
    const full = await paste(s);
    expect(full.status).toBe(507);
    expect(await full.json()).toMatchObject({ success: false, code: 'storage_full' });
    for (let i = 0; i < 5; i++) expect((await ccgen(s)).status).toBe(200);
    await until('/health to say the disk is full', async () => (await health(s)).storage === 'full');
    expect(await health(s)).toMatchObject({ status: 'degraded', storage: 'full' });

    // Room again: the counts made while full are written, and a restart continues them: 8 calls counted (the
    // 507, a 5xx, was given back).
    fs.rmSync(filler);
    await until('/health to be ok again', async () => (await health(s)).status === 'ok');
    expect(await s.stop('SIGTERM')).toBe(0);
    s = server = await start();
    const next = await ccgen(s);
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(LIMIT - 8);

    // Full at the end: what cannot be written is said, and the exit is not a success.
    fill();
    for (let i = 0; i < 3; i++) expect((await ccgen(s)).status).toBe(200);
    expect(await s.stop('SIGTERM')).toBe(1);
    const said = s.lines().find((l) => l.msg === 'shutdown: not everything could be kept');
    expect(String(said?.err)).toMatch(/not written at exit \(no space left, or Redis unreachable\): 1 counter windows/);
  },
  60_000,
);
