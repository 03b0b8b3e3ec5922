// `npm run bench`: autocannon on loopback against the baselines and our engine, side by side, in one go.
// Each server runs in its own child process; autocannon runs here. Prints req/s, p50 and p99 latency and
// the ratio of each to bare Express. Options: BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50),
// BENCH_RUNS (default 3: the median of that many interleaved runs per case).
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const here = path.dirname(fileURLToPath(import.meta.url));
const KEY = 'bench-enterprise-key-0001';

// The load generator and the server under test each get cores of their own (taskset, where there are two
// or more): left to the scheduler, a freshly started server often shares the load generator's core for a
// while, and the time-slicing alone then moves its p99 from ~4 to ~20 ms and its req/s by a third.
const cpus = os.cpus().length;
const pinned = cpus >= 2 && spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;
const serverCpus = cpus > 2 ? `1-${cpus - 1}` : `1`;

// Each server writes its stdout (the engine's access log) to a file, as an operator's would go to a file or
// a collector: read through a pipe, the logs would cost the load generator's process, not the server's.
// The fake upstream stands for another machine, so it runs beside the load generator, not the server.
let started = 0;
function start(target: string, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const log = fs.openSync(path.join(dataDir, `${target}-${++started}.log`), 'w');
  const node = [process.execPath, path.join(here, 'bench-targets.js'), target];
  const [cmd, ...args] = pinned && target !== 'fake-upstream' ? ['taskset', '-c', serverCpus, ...node] : node;
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', log, 'inherit', 'ipc'] });
  fs.closeSync(log);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { ready?: number }) => { if (m.ready) resolve({ port: m.ready, child }); });
    child.on('exit', (code) => reject(new Error(`${target} exited with ${code}`)));
  });
}

async function measure(url: string) {
  await autocannon({ url, connections, duration: 1 }); // warm-up
  const r = await autocannon({ url, connections, duration: seconds });
  const non2xx = r.non2xx + r.errors;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-bench-'));
const keysFile = path.join(dataDir, 'keys.yaml');
fs.writeFileSync(keysFile, `- { key: ${KEY}, plan: enterprise, name: bench }\n`);
const upstream = await start('fake-upstream');
const engineEnv = {
  DATA_DIR: dataDir, API_KEYS_FILE: keysFile, PLAN_ENTERPRISE_LIMIT: '100000000', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  UPSTREAM_POKEAPI_URL: `http://127.0.0.1:${upstream.port}`,
};
const ccgen = `/api/v1/tools/ccgen?apikey=${KEY}&bin=457173`;
const cases: Array<{ name: string; target: string; env?: Record<string, string>; path: string }> = [
  { name: 'bare node:http hello', target: 'node-http', path: '/' },
  { name: 'bare Express 5 hello', target: 'express', path: '/' },
  { name: 'Fastify route + JSON schema', target: 'fastify', path: '/?bin=457173' },
  { name: 'ours: tools/ccgen, in-process store', target: 'engine', env: engineEnv, path: ccgen },
  { name: 'ours: tools/ccgen, Redis store', target: 'engine', env: { ...engineEnv, REDIS_URL: redisUrl, REDIS_PREFIX: `bench-${Date.now()}:` }, path: ccgen },
  { name: 'ours: creature-data cached (fake upstream)', target: 'engine', env: engineEnv, path: `/api/v1/anime/creature-data?apikey=${KEY}&resource=pokemon&id=pikachu` },
  { name: 'ours: creature-data uncached (fake upstream)', target: 'engine', env: engineEnv, path: `/api/v1/anime/creature-data?apikey=${KEY}&resource=pokemon&id=pikachu&nocache=RANDOM` },
];

// Every case is measured `runs` times in interleaved rounds (each round runs all cases), and its median run
// is reported: a slow spell of the machine then weighs on every case alike instead of on one of them.
type Run = { rps: number; p50: number; p99: number; non2xx: number };
const results: Run[][] = cases.map(() => []);
for (let round = 0; round < runs; round++) {
  for (const [i, c] of cases.entries()) {
    const server = await start(c.target, c.env);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      // "Uncached": distinct ids defeat the response cache, so every request reaches the upstream.
      results[i].push(c.path.includes('nocache=RANDOM')
        ? await measureDistinct(base, c.path.replace('&nocache=RANDOM', ''))
        : await measure(`${base}${c.path}`));
    } finally {
      server.child.kill();
    }
  }
}
const rows = cases.map((c, i) => {
  const sorted = [...results[i]].sort((a, b) => a.rps - b.rps);
  const median = sorted[Math.floor(sorted.length / 2)];
  // Any non-2xx answer in any run is reported.
  return { name: c.name, ...median, non2xx: results[i].reduce((n, r) => n + r.non2xx, 0) };
});
upstream.child.kill();

async function measureDistinct(base: string, pathTemplate: string) {
  let i = 0;
  const opts = {
    url: base, connections, duration: seconds,
    requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: pathTemplate.replace('id=pikachu', `id=p${i++}`) }) }],
  };
  await autocannon({ ...opts, duration: 1 } as never);
  const r = await autocannon(opts as never);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

const express = rows.find((r) => r.name.startsWith('bare Express'))!.rps;
const placement = pinned ? `load generator on CPU 0, servers on CPU ${serverCpus}` : 'unpinned (no taskset or one core)';
console.log(`\nautocannon: ${connections} connections, ${seconds} s per run, median of ${runs} interleaved runs per case, loopback, Node ${process.version}, ${cpus} cores, ${placement}\n`);
console.log('| case | req/s | p50 ms | p99 ms | vs bare Express | non-2xx |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${Math.round((r.rps / express) * 100)}% | ${r.non2xx} |`);
}
if (!process.env.BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true }); // the servers' logs and data (BENCH_KEEP=1 keeps them)
