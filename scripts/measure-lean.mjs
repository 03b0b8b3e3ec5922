// Measures what a small machine asks of the server: the time from starting the server to its first /health
// answer (median of several boots), then to the end of its warm-up (the pages and adapters it loads after
// listening) with the slowest /health answer meanwhile, and its resident memory once warm plus one call of each embedded
// endpoint's cheapest request that touches its data. With --hostile it then sends a sweep of malformed and
// hostile requests and gives the resident memory after it.
//
//   node scripts/measure-lean.mjs                     # package.json's start (`node … dist/server/launch.js`), 3 boots
//   node scripts/measure-lean.mjs --start             # `npm start` on this installed tree
//   node scripts/measure-lean.mjs --runs 5 --hostile
//   node scripts/measure-lean.mjs --runs 1 --each     # resident memory after each embedded call
//
// Every boot gets its own empty DATA_DIR and port, and every upstream is pointed at a closed loopback port,
// so nothing leaves the machine. Timings depend on the machine's load (take the median); memory does not.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { startCommand } from './start-command.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '3'));
// package.json's start script run directly (`node <its flags> dist/server/launch.js`), or `npm start` itself.
const { env: startEnv, flags: startFlags, script: startScript } = startCommand(root);
const command = flag('--start')
  ? ['npm', ['start', '--silent']]
  : [process.execPath, process.env.MEASURE_NODE_ARGS?.split(' ') ?? [...startFlags, startScript]];

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4AWP4DwQACfsD/c8LaHIAAAAASUVORK5CYII=';
/** The cheapest request of each embedded endpoint that still reaches its data set; the others get their
 * required parameters' first example. */
const CHEAPEST = {
  'art-design/emoji': { mode: 'random' },
  'art-design/brand-logos': { mode: 'random' },
  'art-design/noise-image': { hex: '0047AB', tiles: '1' },
  'art-design/color-scheme': { hex: '0047AB', mode: 'id' },
  'books/quran-a': { mode: 'ayah', number: '1' },
  'books/quran-b': { mode: 'verse', edition: 'ara-quranuthmanienc', chapter: '1', verse: '1' },
  'art-design/favicon': { domain: 'example.com' },
  'cloud-storage/file-host': { file: 'hello' },
  'cloud-storage/image-host': { image: PNG_1PX },
  'cloud-storage/paste-host': { paste: 'hello' },
  'tts/generate': { text: 'hi' },
  'utilities/ipinfo': { ip: '8.8.8.8' },
  'utilities/phish-check': { domain: 'example.com' },
};

const catalog = fs
  .readdirSync(path.join(root, 'catalog'))
  .filter((f) => f.endsWith('.yaml') && !['plans.yaml', 'upstreams.yaml'].includes(f))
  .flatMap((f) => {
    const doc = YAML.parse(fs.readFileSync(path.join(root, 'catalog', f), 'utf8'));
    return doc.endpoints.map((e) => ({ ...e, id: `${doc.category}/${e.name}` }));
  });
const upstreamIds = Object.keys(YAML.parse(fs.readFileSync(path.join(root, 'catalog/upstreams.yaml'), 'utf8')).upstreams);

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function boot() {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-lean-'));
  const env = {
    ...process.env,
    ...(flag('--start') ? {} : startEnv),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
    PLAN_ANONYMOUS_LIMIT: '10000000',
    AUTH_FAIL_LIMIT: '10000000',
  };
  for (const id of upstreamIds) env[`UPSTREAM_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`] = 'http://127.0.0.1:9';
  const started = performance.now();
  const child = spawn(command[0], command[1], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - started;
  // CPU time the server process spent to get there: unlike the wall time, it barely moves with the load
  // other processes put on the machine.
  const cpuMs = cpuMsOf(serverPid(child.pid));
  // Then until nothing is warming any more (the pages and adapters load after listening): how long that
  // takes, and the slowest /health answer meanwhile (what a request waits at worst during the warm-up).
  let slowest = 0;
  for (;;) {
    const asked = performance.now();
    const health = await fetch(`${base}/health`).then((r) => r.json());
    slowest = Math.max(slowest, performance.now() - asked);
    if (!health.warming) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return {
    ms,
    warmMs: performance.now() - started,
    slowestMs: slowest,
    cpuMs,
    base,
    // npm start runs node as a child: the server's pid is the newest process in the group.
    pid: () => serverPid(child.pid),
    stop: async () => {
      process.kill(-child.pid, 'SIGKILL');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function serverPid(leader) {
  const inGroup = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === leader;
      } catch {
        return false;
      }
    })
    .map(Number);
  return Math.max(...inGroup);
}

function cpuMsOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return ((utime + stime) * 1000) / 100; // clock ticks of 1/100 s (USER_HZ)
}

function residentMb(pid) {
  // A server that died (its stderr is ours: the reason is printed above) has no status, or no VmRSS as a zombie.
  const status = fs.existsSync(`/proc/${pid}/status`) ? fs.readFileSync(`/proc/${pid}/status`, 'utf8') : '';
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  if (!kb) throw new Error(`the server (pid ${pid}) has exited: no resident memory to read`);
  return Number(kb) / 1024;
}

async function call(base, spec, params) {
  const url = new URL(`/api/v1/${spec.id}`, base);
  url.searchParams.set('apikey', 'anonymous');
  if (spec.method === 'GET') {
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return fetch(url);
  }
  const form = new FormData();
  for (const [k, v] of Object.entries(params)) {
    if (spec.params[k]?.type === 'file' && !spec.params[k].orText) form.set(k, new Blob([v]), 'hello.txt');
    else form.set(k, v);
  }
  return fetch(url, { method: 'POST', body: form });
}

function cheapest(spec) {
  if (CHEAPEST[spec.id]) return CHEAPEST[spec.id];
  const out = {};
  for (const [name, p] of Object.entries(spec.params ?? {})) if (p.required) out[name] = String(p.examples?.[0] ?? p.enum?.[0]);
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x);

// Malformed requests: hostile values in every parameter, bodies that do not parse, repeated and nested
// query keys, wrong methods, unknown paths and wrong keys.
function* hostileRequests(base) {
  const HOSTILE = [
    '-1',
    '99999999999999999999',
    'x'.repeat(3000),
    '<script>alert(1)</script>',
    '../../../etc/passwd',
    '\u202e💥\u0007',
    'null',
    '{"a":1}',
  ];
  for (const spec of catalog) {
    const url = `${base}/api/v1/${spec.id}`;
    for (const name of Object.keys(spec.params ?? {}))
      for (const value of HOSTILE) {
        const q = new URLSearchParams({ apikey: 'anonymous', [name]: value });
        yield spec.method === 'GET' ? [`${url}?${q}`] : [url, { method: 'POST', body: q }];
        yield [`${url}?apikey=anonymous&${name}=${encodeURIComponent(value)}&${name}=1&${name}[x]=2`];
      }
    for (const key of ['wrong-key-' + spec.id, '', 'x'.repeat(500)]) yield [`${url}?apikey=${encodeURIComponent(key)}`];
    yield [url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'anonymous' }, body: '{"unterminated' }];
    yield [url, { method: 'PUT', headers: { 'x-api-key': 'anonymous' } }];
    yield [
      url,
      { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'x-api-key': 'anonymous' }, body: '--x\r\nbroken' },
    ];
    for (let i = 0; i < 20; i++) yield [`${url}-${i}/${'a'.repeat(i * 50)}?apikey=anonymous`];
  }
}

async function sweep(base, total) {
  let sent = 0;
  const requests = [];
  while (requests.length < total) for (const r of hostileRequests(base)) requests.push(r);
  requests.length = total;
  const worker = async () => {
    for (let r = requests.shift(); r; r = requests.shift()) {
      await fetch(r[0], { ...r[1], signal: AbortSignal.timeout(10_000) }).then(
        (res) => res.arrayBuffer(),
        () => undefined,
      );
      sent++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return sent;
}

const boots = [];
const bootCpu = [];
const warms = [];
const slowest = [];
for (let i = 0; i < runs; i++) {
  const b = await boot();
  boots.push(b.ms);
  bootCpu.push(b.cpuMs);
  warms.push(b.warmMs);
  slowest.push(b.slowestMs);
  if (i < runs - 1) await b.stop();
  else {
    const pid = b.pid();
    const afterBoot = residentMb(pid);
    const embedded = catalog.filter((e) => e.upstream === 'embedded');
    const statuses = [];
    for (const spec of embedded) {
      const res = await call(b.base, spec, cheapest(spec));
      await res.arrayBuffer();
      statuses.push(`${spec.id} ${res.status}`);
      if (flag('--each')) console.log(`  ${spec.id}: ${res.status}, ${round(residentMb(pid))} MB`);
    }
    const afterCalls = residentMb(pid);
    const shown = flag('--start') ? [] : Object.entries(startEnv).map(([k, v]) => `${k}=${v}`);
    console.log(`command:            ${[...shown, path.basename(command[0]), ...command[1]].join(' ')}`);
    console.log(`boot to /health:    ${boots.map(round).join(', ')} ms (median ${round(median(boots))} ms)`);
    console.log(`  server CPU by then: ${bootCpu.map(round).join(', ')} ms (median ${round(median(bootCpu))} ms)`);
    console.log(
      `warm (pages and every adapter loaded): ${warms.map(round).join(', ')} ms after the start (median ${round(median(warms))} ms)`,
    );
    console.log(`  slowest /health answer while warming: ${slowest.map(round).join(', ')} ms`);
    console.log(`resident once warm: ${round(afterBoot)} MB`);
    console.log(`after one call of each of ${embedded.length} embedded endpoints: ${round(afterCalls)} MB`);
    const failed = statuses.filter((s) => !/ 200$/.test(s));
    if (failed.length) console.log(`  not 200: ${failed.join(', ')}`);
    if (flag('--hostile')) {
      const total = Number(option('--requests', '11000'));
      const started = performance.now();
      const sent = await sweep(b.base, total);
      console.log(
        `after a hostile sweep of ${sent} requests (${round((performance.now() - started) / 1000)} s): ${round(residentMb(pid))} MB`,
      );
      // Diagnosis: a server started with NODE_OPTIONS='--require <a SIGUSR2 handler>' (or --heapsnapshot-signal=SIGUSR2)
      // is signalled here, and given MEASURE_SIGNAL_WAIT_MS to answer before it is stopped.
      if (process.env.MEASURE_SIGNAL_WAIT_MS) {
        process.kill(pid, 'SIGUSR2');
        await new Promise((r) => setTimeout(r, Number(process.env.MEASURE_SIGNAL_WAIT_MS)));
      }
    }
    await b.stop();
  }
}
