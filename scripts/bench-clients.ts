// `npm run bench:clients`: what one upstream call costs in CPU with each HTTP client we could use, measured
// in this process only (process.cpuUsage over N calls), against the bench's fake upstream in a child process.
// CPU time per call, unlike req/s, hardly moves when other processes load the machine, so clients can be
// compared on a shared machine. Each client is set up as the engine would use it: a keep-alive pool per
// upstream, the body read whole as a Buffer. Options: CLIENT_CALLS (default 20000), CLIENT_CONCURRENCY
// (default 50), CLIENT_ROUNDS (default 3, interleaved; the median is reported).
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import path from 'node:path';
import got from 'got';
import { Agent, request } from 'undici';

const calls = Number(process.env.CLIENT_CALLS ?? 20_000);
const concurrency = Number(process.env.CLIENT_CONCURRENCY ?? 50);
const rounds = Math.max(1, Number(process.env.CLIENT_ROUNDS ?? 3));
const here = path.dirname(fileURLToPath(import.meta.url));

const upstream = spawn(process.execPath, [path.join(here, 'bench-targets.js'), 'fake-upstream'], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const port = await new Promise<number>((ok) => upstream.once('message', (m: { ready: number }) => ok(m.ready)));
const base = `http://127.0.0.1:${port}`;

type Call = (i: number) => Promise<Buffer>;
const gotClient = got.extend({
  prefixUrl: base,
  timeout: { request: 30_000 },
  retry: { limit: 0 },
  throwHttpErrors: false,
  responseType: 'buffer',
});
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128 });
const clients: Array<{ name: string; call: Call }> = [
  { name: 'got 14 (today)', call: async (i) => (await gotClient(`api/v2/pokemon/p${i}`)).rawBody },
  {
    name: 'undici.request + Agent',
    call: async (i) => {
      const res = await request(`${base}/api/v2/pokemon/p${i}`, { dispatcher: agent, signal: AbortSignal.timeout(30_000) });
      return Buffer.from(await res.body.arrayBuffer());
    },
  },
  {
    name: 'Node fetch (global)',
    call: async (i) =>
      Buffer.from(await (await fetch(`${base}/api/v2/pokemon/p${i}`, { signal: AbortSignal.timeout(30_000) })).arrayBuffer()),
  },
];

/** `calls` calls, `concurrency` at a time; CPU µs and wall ms per call. */
async function run(call: Call) {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const body = await call(next++);
      if (body.length < 10) throw new Error('short body');
    }
  };
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / calls, wallMs: performance.now() - t0 };
}

const results = new Map<string, Array<{ cpuUs: number; wallMs: number }>>();
for (const c of clients) {
  await run(c.call); // warm-up: JIT and connection pool
  results.set(c.name, []);
}
for (let r = 0; r < rounds; r++) for (const c of clients) results.get(c.name)!.push(await run(c.call));
upstream.kill();
await agent.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const gotCpu = median(results.get(clients[0].name)!.map((x) => x.cpuUs));
console.log(
  `\n${calls} calls, ${concurrency} at a time, median of ${rounds} interleaved rounds, Node ${process.version}; CPU of this process only\n`,
);
console.log('| client | CPU µs per call | vs got | calls/s (noisy) |');
console.log('|---|---:|---:|---:|');
for (const c of clients) {
  const rs = results.get(c.name)!;
  const cpu = median(rs.map((x) => x.cpuUs));
  const rate = calls / (median(rs.map((x) => x.wallMs)) / 1000);
  console.log(`| ${c.name} | ${cpu.toFixed(1)} | ${Math.round((cpu / gotCpu) * 100)}% | ${Math.round(rate)} |`);
}
