// `npm run bench:heap`: do uncached upstream calls leave anything behind? The engine runs in this process
// against the bench's fake upstream (a child process); HEAP_CALLS (default 10000) calls with distinct ids
// go through it, 20 at a time, and the heap is weighed after a full GC before and after them. The response
// cache holds at most 5000 answers, so a warm-up of 6000 distinct calls fills it first: what is weighed is
// the steady state, where a leak would show as growth. Exits 1 when the heap grew by more than HEAP_SLACK_MB
// (default 2).
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Agent } from 'undici';
import { createApp } from '../server/app.js';

const calls = Number(process.env.HEAP_CALLS ?? 10_000);
const slackMb = Number(process.env.HEAP_SLACK_MB ?? 2);
const here = path.dirname(fileURLToPath(import.meta.url));
const KEY = 'bench-enterprise-key-0001';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapMb = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const upstream = spawn(process.execPath, [path.join(here, 'bench-targets.js'), 'fake-upstream'], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const upstreamPort = await new Promise<number>((ok) => upstream.once('message', (m: { ready: number }) => ok(m.ready)));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-heap-'));
fs.writeFileSync(path.join(dataDir, 'keys.yaml'), `- { key: ${KEY}, plan: enterprise, name: bench }\n`);
const { app } = await createApp({
  ...process.env,
  DATA_DIR: dataDir,
  API_KEYS_FILE: path.join(dataDir, 'keys.yaml'),
  PLAN_ENTERPRISE_LIMIT: '100000000',
  LOG_LEVEL: 'silent',
  UPSTREAM_POKEAPI_URL: `http://127.0.0.1:${upstreamPort}`,
});
const server = http.createServer(app);
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const agent = new Agent({ keepAliveTimeout: 10_000 });

let next = 0;
async function run(n: number): Promise<void> {
  const end = next + n;
  const worker = async () => {
    while (next < end) {
      const res = await agent.request({
        origin,
        method: 'GET',
        path: `/api/v1/anime/creature-data?apikey=${KEY}&resource=pokemon&id=p${next++}`,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
}

await run(6000);
const before = heapMb();
await run(calls);
const after = heapMb();
await agent.close();
server.close();
upstream.kill();
fs.rmSync(dataDir, { recursive: true, force: true });

console.log(
  `heap after a full GC: ${before.toFixed(1)} MB before ${calls} uncached calls, ${after.toFixed(1)} MB after (${after - before >= 0 ? '+' : ''}${(after - before).toFixed(2)} MB)`,
);
process.exit(after - before > slackMb ? 1 : 0);
