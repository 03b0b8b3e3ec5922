// `npm run bench`: autocannon on loopback against the baselines and our engine, side by side, in one go.
// Each server runs in its own child process; autocannon runs here. Prints req/s, p50 and p99 latency, the
// server's CPU time per request (from /proc: it barely moves when other processes load the machine, unlike
// req/s), and the ratio of each case to bare Express and, for the upstream path, to nginx proxying to the
// same fake upstream (the limit of what an uncached upstream call can cost here). Options: BENCH_SECONDS
// (default 8), BENCH_WARMUP (default 3), BENCH_CONNECTIONS (default 50), BENCH_RUNS (default 3: the median of
// that many interleaved runs per case).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { CONSTANT } from './bench-constant.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const here = path.dirname(fileURLToPath(import.meta.url));
const KEY = 'bench-enterprise-key-0001';

// The load generator and the server under test each get cores of their own (taskset, where there are two
// or more): left to the scheduler, a freshly started server often shares the load generator's core for a
// while, and the time-slicing alone then moves its p99 from ~4 to ~20 ms and its req/s by a third.
// The fake upstream stands for another machine: with three cores or more it gets one of its own, with two
// it shares the load generator's (the table says which).
const cpus = os.cpus().length;
const pinned = cpus >= 2 && spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;
const upstreamCpus = pinned && cpus > 2 ? '1' : '0';
const serverCpus = cpus > 3 ? `2-${cpus - 1}` : cpus === 3 ? '2' : '1';
const taskset = (cores: string, cmd: string[]) => (pinned ? ['taskset', '-c', cores, ...cmd] : cmd);

// A Redis on this machine stands for another machine too, like the fake upstream: it is moved to the fake
// upstream's core for the run and given back its own cores afterwards. Left where the scheduler puts it, it
// sometimes shares the server's core, and the Redis case then moved by a fifth between runs of one build.
function pinLocalRedis(url: string): { pinned: boolean; restore(): void } {
  const host = new URL(url).hostname;
  if (!pinned || !['127.0.0.1', 'localhost', '[::1]'].includes(host)) return { pinned: false, restore() {} };
  const pids = spawnSync('pgrep', ['-x', 'redis-server']).stdout?.toString().split(/\s+/).filter(Boolean) ?? [];
  const restore: [string, string][] = [];
  for (const pid of pids) {
    const was = /: (\S+)\s*$/.exec(spawnSync('taskset', ['-a', '-p', '-c', pid]).stdout?.toString().split('\n')[0] ?? '')?.[1];
    if (was && spawnSync('taskset', ['-a', '-p', '-c', upstreamCpus, pid], { stdio: 'ignore' }).status === 0) restore.push([pid, was]);
  }
  return {
    pinned: restore.length > 0,
    restore() {
      for (const [pid, cores] of restore.splice(0)) spawnSync('taskset', ['-a', '-p', '-c', cores, pid], { stdio: 'ignore' });
    },
  };
}

// The engine runs as `npm start` runs it: with the start command's environment and Node flags, which trade
// speed for memory (scripts/start-command.mjs, which scripts/measure-lean.mjs reads it with too).
const { startCommand } = (await import(
  pathToFileURL(path.join(here, '../../scripts/start-command.mjs')).href
)) as typeof import('./start-command.mjs');
const { env: startEnv, flags: startFlags } = startCommand(path.join(here, '../..'));

// Each server writes its stdout (the engine's access log) to a file, as an operator's would go to a file or
// a collector: read through a pipe, the logs would cost the load generator's process, not the server's.
let started = 0;
/** `log`: the file its stdout goes to (none for nginx). */
type Server = { port: number; child: ChildProcess; log?: string };
function start(target: string, env: Record<string, string> = {}, scriptsDir = here): Promise<Server> {
  if (target === 'nginx') return startNginx();
  const logFile = path.join(dataDir, `${target}-${++started}.log`);
  const log = fs.openSync(logFile, 'w');
  const engine = target === 'engine';
  const node = [process.execPath, ...(engine ? startFlags : []), path.join(scriptsDir, 'bench-targets.js'), target];
  const [cmd, ...args] = taskset(target === 'fake-upstream' ? upstreamCpus : serverCpus, node);
  // Another build (BENCH_COMPARE) keeps its data apart: its tables may be of another schema version.
  const own = engine && scriptsDir !== here ? { DATA_DIR: dataDirOf(scriptsDir) } : {};
  const child = spawn(cmd, args, {
    env: { ...process.env, ...(engine ? startEnv : {}), ...env, ...own },
    stdio: ['ignore', log, 'inherit', 'ipc'],
  });
  fs.closeSync(log);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { ready?: number }) => {
      if (m.ready) resolve({ port: m.ready, child, log: logFile });
    });
    child.on('exit', (code) => reject(new Error(`${target} exited with ${code}`)));
  });
}

// ---- nginx: one worker, no master, keep-alive to the fake upstream, no access log (our engine logs to a file) ----

/** The nginx binary on PATH or in /usr/sbin; else installed from Debian's packages when we may; else undefined. */
function findNginx(): string | undefined {
  const found = () => ['nginx', '/usr/sbin/nginx'].find((bin) => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0);
  if (found() || process.env.BENCH_NO_INSTALL) return found();
  console.error('bench: nginx not found, trying `apt-get install -y nginx`...');
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return found();
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function startNginx(): Promise<Server> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(dataDir, 'nginx-'));
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `worker_processes 1;
master_process off;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream fake { server 127.0.0.1:${upstream.port}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://fake; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const [cmd, ...args] = taskset(serverCpus, [nginx!, '-p', dir, '-c', conf, '-e', `${dir}/error.log`]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((ok) =>
      net
        .connect(port, '127.0.0.1')
        .once('connect', function (this: net.Socket) {
          this.destroy();
          ok(true);
        })
        .once('error', () => ok(false)),
    );
    if (up) return { port, child };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`nginx did not start: see ${dir}/error.log`);
}

/** User + system CPU time of a process so far, in µs (Linux /proc; undefined elsewhere). */
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;
function cpuOf(pid: number | undefined): number | undefined {
  try {
    const fields = fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6; // utime, stime
  } catch {
    return undefined;
  }
}

/**
 * A warm-up, then the timed run; the server's CPU per request is read around the timed run only. The warm-up
 * lasts BENCH_WARMUP seconds (default 3): a server with as much code as ours is still compiling its hot paths
 * after one second (its first timed second ran 15 % slower than the rest), and a long-running server is
 * measured, not a fresh one. Every case gets the same warm-up. Several loads given are driven at once, each
 * with its share of the connections (BENCH_TOGETHER).
 */
async function drive(loads: { opts: Record<string, unknown>; pid: number | undefined }[]): Promise<Run[]> {
  const share = Math.max(1, Math.round(connections / loads.length));
  await Promise.all(loads.map((l) => autocannon({ ...l.opts, connections: share, duration: warmup } as never)));
  const before = loads.map((l) => cpuOf(l.pid));
  const results = await Promise.all(loads.map((l) => autocannon({ ...l.opts, connections: share, duration: seconds } as never)));
  return results.map((r, i) => {
    const after = cpuOf(loads[i].pid);
    const was = before[i];
    const cpuUs = was !== undefined && after !== undefined && r.requests.total > 0 ? (after - was) / r.requests.total : NaN;
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuUs, non2xx: r.non2xx + r.errors };
  });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-bench-'));
/** A data directory of its own for each other build's servers, under the bench's (so it is removed with it). */
const otherDataDirs = new Map<string, string>();
function dataDirOf(scriptsDir: string): string {
  let dir = otherDataDirs.get(scriptsDir);
  if (!dir) otherDataDirs.set(scriptsDir, (dir = fs.mkdtempSync(path.join(dataDir, 'other-'))));
  return dir;
}
const keysFile = path.join(dataDir, 'keys.yaml');
fs.writeFileSync(keysFile, `- { key: ${KEY}, plan: enterprise, name: bench }\n`);
const upstream = await start('fake-upstream');
const redisPin = pinLocalRedis(redisUrl);
const redisPinned = redisPin.pinned;
process.once('exit', () => redisPin.restore());
process.once('SIGINT', () => process.exit(130));
const nginx = findNginx();
if (!nginx) console.error('bench: nginx is not installed and could not be installed: its row is left out');
const engineEnv = {
  DATA_DIR: dataDir,
  API_KEYS_FILE: keysFile,
  PLAN_ENTERPRISE_LIMIT: '100000000',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  UPSTREAM_POKEAPI_URL: `http://127.0.0.1:${upstream.port}`,
};
const ccgen = `/api/v1/tools/ccgen?apikey=${KEY}&bin=457173`;

// The engine's own cost: an endpoint whose adapter returns a constant, registered by the bench only (its own
// catalog folder: the plans and upstreams, and bench.yaml with this one endpoint; its own adapters folder),
// beside bare node:http writing the same envelope. Everything else a request goes through is the product's:
// key, meter, validation of `bin`, the cache step, the envelope, the access log, metrics and usage history.
/** The bench's catalog folder for the build whose source is at `root` (its plans and upstreams, and bench.yaml). */
function benchCatalogOf(root: string, name: string): string {
  const dir = path.join(dataDir, name);
  fs.mkdirSync(dir);
  for (const f of ['plans.yaml', 'upstreams.yaml']) fs.copyFileSync(path.join(root, 'catalog', f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'bench.yaml'), BENCH_YAML);
  return dir;
}
const BENCH_YAML = `category: bench
endpoints:
  - name: constant
    method: GET
    summary: A constant answer, to measure what the engine costs per request
    adapter: bench/constant
    upstream: embedded
    params:
      bin: { type: string, required: true, description: 'A BIN, as ccgen takes it', pattern: '^[0-9]{6,8}$', patternHint: 6 to 8 digits }
    response: { type: object }
`;
const benchCatalog = benchCatalogOf(path.join(here, '../..'), 'catalog');
const benchAdapters = path.join(dataDir, 'adapters');
fs.mkdirSync(path.join(benchAdapters, 'bench'), { recursive: true });
fs.writeFileSync(path.join(benchAdapters, 'bench/constant.js'), `export default async () => (${JSON.stringify(CONSTANT)});\n`);
const constantEnv = { ...engineEnv, CATALOG_DIR: benchCatalog, BENCH_ADAPTERS_DIR: benchAdapters };
// A media link on our engine (downloaders/dl-d answered by the fake's tikwm-shaped route), streaming the fake
// CDN's 256 KiB file through the SSRF-guarded client, beside nginx proxying the same file. The fake is on
// loopback, which only ALLOW_PRIVATE_FETCH lets the guard reach; the enterprise key's streams are not bound.
// The streams' memory: BENCH_MEDIA_STREAMS (default 20) callers each fetch a link to a BENCH_MEDIA_MB (default
// 50) MB file at once, and the engine's resident memory is sampled meanwhile.
const mediaStreams = Number(process.env.BENCH_MEDIA_STREAMS ?? 20);
const mediaMb = Number(process.env.BENCH_MEDIA_MB ?? 50);
const mediaEnv = {
  ...engineEnv,
  UPSTREAM_TIKWM_URL: `http://127.0.0.1:${upstream.port}`,
  ALLOW_PRIVATE_FETCH: 'true',
  MEDIA_FACTS: 'false',
  MEDIA_STREAMS_ENTERPRISE: String(Math.max(connections * 2, mediaStreams)),
  MEDIA_DAILY_MB_ENTERPRISE: '100000000',
};
/** The path of a fresh media link of the engine at `base` (to the fake's `<video>mb.mp4` for `video: '50mb'`). */
async function mediaLink(base: string, video = '1'): Promise<string> {
  const post = encodeURIComponent(`https://www.tiktok.com/@bench/video/${video}`);
  const res = await fetch(`${base}/api/v1/downloaders/dl-d?apikey=${KEY}&url=${post}`);
  const body = (await res.json()) as { data: { medias: Array<{ url: string }> } };
  return new URL(body.data.medias[0].url).pathname;
}
type Case = {
  name: string;
  target: string;
  env?: Record<string, string>;
  path: string;
  scriptsDir?: string;
  /** The path to measure, asked of the running server (a link it makes). */
  prepare?: (base: string) => Promise<string>;
};
const cases: Case[] = [
  { name: 'bare node:http hello', target: 'node-http', path: '/' },
  { name: 'bare Express 5 hello', target: 'express', path: '/' },
  { name: 'Fastify route + JSON schema', target: 'fastify', path: '/?bin=457173' },
  ...(nginx ? [{ name: 'bare nginx proxy → fake upstream', target: 'nginx', path: '/api/v2/pokemon/pikachu/' }] : []),
  {
    name: 'bare Node proxy (undici) → fake upstream',
    target: 'undici-proxy',
    env: { UPSTREAM_URL: `http://127.0.0.1:${upstream.port}` },
    path: '/api/v2/pokemon/pikachu/',
  },
  { name: 'bare node:http envelope', target: 'node-http-envelope', path: '/?bin=457173' },
  {
    name: 'ours: constant adapter, in-process store',
    target: 'engine',
    env: constantEnv,
    path: `/api/v1/bench/constant?apikey=${KEY}&bin=457173`,
  },
  { name: 'ours: tools/ccgen, in-process store', target: 'engine', env: engineEnv, path: ccgen },
  {
    name: 'ours: tools/ccgen, Redis store',
    target: 'engine',
    env: { ...engineEnv, REDIS_URL: redisUrl, REDIS_PREFIX: `bench-${Date.now()}:` },
    path: ccgen,
  },
  {
    name: 'ours: creature-data cached (fake upstream)',
    target: 'engine',
    env: engineEnv,
    path: `/api/v1/anime/creature-data?apikey=${KEY}&resource=pokemon&id=pikachu`,
  },
  {
    name: 'ours: creature-data uncached (fake upstream)',
    target: 'engine',
    env: engineEnv,
    path: `/api/v1/anime/creature-data?apikey=${KEY}&resource=pokemon&id=pikachu&nocache=RANDOM`,
  },
  ...(nginx ? [{ name: 'bare nginx proxy → fake CDN file (256 KiB)', target: 'nginx', path: '/media/file.mp4' }] : []),
  { name: 'ours: media link stream → fake CDN file (256 KiB)', target: 'engine', env: mediaEnv, path: '', prepare: mediaLink },
];

// BENCH_COMPARE=<another build's dist/scripts> adds that build's engine cases, named "before: …", to the same
// interleaved rounds: a before/after comparison that a change of the machine's pace between two runs cannot
// skew. That build's dist/scripts needs this bench-targets.js (copy it there and build). BENCH_COMPARE_ENV
// (JSON of variables) sets those cases' environment apart: `BENCH_COMPARE=dist/scripts` with
// BENCH_COMPARE_ENV='{"REQUEST_LOG":"off"}' measures a setting against itself in one build.
if (process.env.BENCH_COMPARE) {
  const other = path.resolve(process.env.BENCH_COMPARE);
  const apart = JSON.parse(process.env.BENCH_COMPARE_ENV ?? '{}') as Record<string, string>;
  const ours = cases.filter((c) => c.target === 'engine');
  // The constant endpoint's catalog with that build's own plans (their fields may differ).
  const otherCatalog = benchCatalogOf(path.join(other, '../..'), 'catalog-before');
  const own = (env?: Record<string, string>) => (env?.CATALOG_DIR === benchCatalog ? { ...env, CATALOG_DIR: otherCatalog } : env);
  // Each "before:" case right after its own, so a pair runs within a minute of itself (see the paired ratios below).
  for (const c of ours)
    cases.splice(cases.indexOf(c) + 1, 0, {
      ...c,
      env: { ...own(c.env), ...apart },
      name: c.name.replace(/^ours:/, 'before:'),
      scriptsDir: other,
    });
}

// BENCH_ONLY (a regular expression) keeps the cases whose names match it, plus bare Express, the reference
// (and bare node:http's envelope with the constant endpoint, its reference).
if (process.env.BENCH_ONLY) {
  const only = new RegExp(process.env.BENCH_ONLY, 'i');
  const keep = (c: Case) =>
    only.test(c.name) ||
    c.name.startsWith('bare Express') ||
    (c.name.startsWith('bare node:http envelope') && cases.some((o) => o.name.includes('constant') && only.test(o.name)));
  cases.splice(0, cases.length, ...cases.filter(keep));
}

// Every case is measured `runs` times in interleaved rounds (each round runs all cases), and its median run
// is reported: a slow spell of the machine then weighs on every case alike instead of on one of them.
type Run = { rps: number; p50: number; p99: number; cpuUs: number; non2xx: number };
const results: Run[][] = cases.map(() => []);
/** Each compared pair: an "ours:" case and its "before:" case, which runs right after it. */
const pairs = cases.flatMap((c, i) =>
  c.name.startsWith('ours:') && cases[i + 1]?.name === c.name.replace(/^ours:/, 'before:') ? [[i, i + 1] as const] : [],
);
/**
 * BENCH_TOGETHER=1: each pair's two servers run at once on the server's core, each driven with half the
 * connections, so a change of the machine's pace (seconds long on a shared host: single rounds a minute
 * apart ranged from 0.3 to 2.8) falls on both alike. Each row's req/s is then half a core's; the pair's ratio
 * and each row's CPU per request are what it is for.
 */
const together = process.env.BENCH_TOGETHER === '1' && pairs.length > 0;
/** A round's order of the cases: in odd rounds, each pair's "before:" case runs first. */
function orderOf(round: number): number[] {
  const order = cases.map((_, i) => i);
  if (round % 2) for (const [i, j] of pairs) [order[i], order[j]] = [j, i];
  return order;
}
/** The autocannon options for a case's path on a running server. */
function loadOf(base: string, target: string): Record<string, unknown> {
  if (!target.includes('nocache=RANDOM')) return { url: `${base}${target}` };
  // "Uncached": distinct ids defeat the response cache, so every request reaches the upstream.
  const template = target.replace('&nocache=RANDOM', '');
  let i = 0;
  const setupRequest = (req: { path: string }) => ({ ...req, path: template.replace('id=pikachu', `id=p${i++}`) });
  return { url: base, requests: [{ setupRequest }] };
}

/** The cases given, their servers started, measured at once (one case: alone); then their servers stopped. */
async function measure(group: Case[]): Promise<Run[]> {
  const servers: Server[] = [];
  try {
    for (const c of group) servers.push(await start(c.target, c.env, c.scriptsDir));
    const loads = await Promise.all(
      group.map(async (c, k) => {
        const base = `http://127.0.0.1:${servers[k].port}`;
        return { opts: loadOf(base, c.prepare ? await c.prepare(base) : c.path), pid: servers[k].child.pid };
      }),
    );
    return await drive(loads);
  } finally {
    for (const server of servers) {
      server.child.kill();
      // Its access log (~60 MB a run) is gone before the kernel writes it back (after ~30 s, while later
      // cases run, on whichever core): deleted first, its pages are dropped unwritten. BENCH_KEEP keeps it.
      if (server.log && !process.env.BENCH_KEEP) fs.rmSync(server.log, { force: true });
    }
  }
}

for (let round = 0; round < runs; round++) {
  for (const i of orderOf(round)) {
    const pair = together ? pairs.find(([a, b]) => a === i || b === i) : undefined;
    if (pair) {
      // Both of a pair at once, on the server's core: each has half of it, whatever the machine's pace.
      if (i !== pair[0]) continue;
      const [ours, before] = await measure([cases[pair[0]], cases[pair[1]]]);
      results[pair[0]].push(ours);
      results[pair[1]].push(before);
    } else results[i].push((await measure([cases[i]]))[0]);
  }
}
const rows = cases.map((c, i) => {
  const sorted = [...results[i]].sort((a, b) => a.rps - b.rps);
  const median = sorted[Math.floor(sorted.length / 2)];
  // Any non-2xx answer in any run is reported.
  return { name: c.name, ...median, non2xx: results[i].reduce((n, r) => n + r.non2xx, 0) };
});

/** Reads a whole answer, keeping none of it: the number of bytes. */
function drain(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve(res.statusCode === 200 ? bytes : -res.statusCode!));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Resident memory of a process, in MB (VmRSS from /proc). */
const residentMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The engine's resident memory idle (after one stream of the file) and at its peak while the streams run. */
async function streamsMemory() {
  const server = await start('engine', mediaEnv);
  const pid = server.child.pid!;
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const link = `${base}${await mediaLink(base, `${mediaMb}mb`)}`;
    const whole = mediaMb * 1024 * 1024;
    if ((await drain(link)) !== whole) throw new Error('bench: the media link did not stream the whole file');
    const idleMb = residentMb(pid);
    let peakMb = idleMb;
    const sample = setInterval(() => (peakMb = Math.max(peakMb, residentMb(pid))), 20);
    const t0 = performance.now();
    const got = await Promise.all(Array.from({ length: mediaStreams }, () => drain(link)));
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sample);
    peakMb = Math.max(peakMb, residentMb(pid));
    if (got.some((n) => n !== whole)) throw new Error(`bench: a media stream ended short (${got.join(', ')} bytes)`);
    return { idleMb, peakMb, mbPerS: (mediaStreams * mediaMb) / seconds };
  } finally {
    server.child.kill();
  }
}
const streams = await streamsMemory();
upstream.child.kill();

const express = rows.find((r) => r.name.startsWith('bare Express'))!.rps;
const nginxRps = rows.find((r) => r.name.startsWith('bare nginx proxy → fake upstream'))?.rps;
const nginxFileRps = rows.find((r) => r.name.startsWith('bare nginx proxy → fake CDN'))?.rps;
const placement = pinned
  ? `load generator on CPU 0, servers on CPU ${serverCpus}, fake upstream${redisPinned ? ' and the local Redis' : ''} on CPU ${upstreamCpus}${upstreamCpus === '0' ? ' (with the load generator: no third core)' : ''}`
  : 'unpinned (no taskset or one core)';
console.log(
  `\nautocannon: ${connections} connections, ${warmup} s warm-up and ${seconds} s per run, median of ${runs} interleaved runs per case${together ? ", each compared pair run together on the servers' core" : ''}, loopback, Node ${process.version}, ${cpus} cores, ${placement}; ours run as npm start runs them (${[...Object.entries(startEnv).map(([k, v]) => `${k}=${v}`), ...startFlags].join(' ')})\n`,
);
console.log('| case | req/s | p50 ms | p99 ms | server CPU µs/req | vs bare Express | vs nginx proxy | non-2xx |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
const pct = (x: number, of: number | undefined) => (of ? `${Math.round((x / of) * 100)}%` : '–');
for (const r of rows) {
  const upstreamCase = r.name.includes('upstream');
  const fileCase = r.name.includes('fake CDN');
  const cpu = Number.isFinite(r.cpuUs) ? Math.round(r.cpuUs) : '–';
  console.log(
    `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${cpu} | ${pct(r.rps, express)} | ${fileCase ? pct(r.rps, nginxFileRps) : upstreamCase ? pct(r.rps, nginxRps) : '–'} | ${r.non2xx} |`,
  );
}
// The engine's overhead, by req/s and by server CPU per request (the latter barely moves with the machine's load).
const envelope = rows.find((r) => r.name === 'bare node:http envelope');
const constant = rows.find((r) => r.name.startsWith('ours: constant adapter'));
if (envelope && constant)
  console.log(
    `\nengine overhead: the constant endpoint through the whole engine runs at ${pct(constant.rps, envelope.rps)} of bare node:http writing the same envelope (req/s); ${pct(envelope.cpuUs, constant.cpuUs)} by server CPU per request`,
  );
// A compared pair, round by round: ours against before in the same round, a minute apart. A slow spell of the
// machine or one slow server process weighs on one round's ratio, not on the median of them.
if (pairs.length) {
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
  };
  const fmt = (x: number) => x.toFixed(3);
  console.log('\n| paired by round (ours ÷ before) | req/s: median [min–max] | server CPU µs/req: median [min–max] |');
  console.log('|---|---:|---:|');
  for (const [i, j] of pairs) {
    const rps = results[i].map((r, k) => r.rps / results[j][k].rps);
    const cpu = results[i].map((r, k) => r.cpuUs / results[j][k].cpuUs);
    const range = (xs: number[]) => `${fmt(med(xs))} [${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}]`;
    console.log(`| ${cases[i].name.replace(/^ours: /, '')} | ${range(rps)} | ${Number.isFinite(med(cpu)) ? range(cpu) : '–'} |`);
  }
}
console.log(
  `\nmedia streams: ${mediaStreams} concurrent streams of one ${mediaMb} MB media link, ${Math.round(streams.mbPerS)} MB/s in all; the engine's resident memory ${Math.round(streams.idleMb)} MB idle, ${Math.round(streams.peakMb)} MB at its peak (+${Math.round(streams.peakMb - streams.idleMb)} MB)`,
);
if (!process.env.BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true }); // the servers' logs and data (BENCH_KEEP=1 keeps them)
