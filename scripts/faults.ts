// `npm run faults`: what callers and a failing upstream meet. A fake PokéAPI on loopback answers every call
// with a 500 after FAULT_DELAY_MS (default 200); FAULT_CALLS (default 40) calls of anime/creature-data with
// distinct ids (so the response cache answers none) go through the engine one after the other. Printed:
// how many times the upstream was asked, and the callers' answer times (median, 95th percentile, total),
// by status and code. The figures of docs/decisions/upstream-policies.md ("Fault figures") come from here.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../server/app.js';

const calls = Number(process.env.FAULT_CALLS ?? 40);
const delayMs = Number(process.env.FAULT_DELAY_MS ?? 200);
const KEY = 'faults-enterprise-key-0001';

let hits = 0;
const upstream = http.createServer((_req, res) => {
  hits++;
  setTimeout(() => res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"boom"}'), delayMs);
});
await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-faults-'));
fs.writeFileSync(path.join(dataDir, 'keys.yaml'), `- { key: ${KEY}, plan: enterprise, name: faults }\n`);
const engine = await createApp({
  ...process.env,
  DATA_DIR: dataDir,
  API_KEYS_FILE: path.join(dataDir, 'keys.yaml'),
  LOG_LEVEL: 'silent',
  UPSTREAM_POKEAPI_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
});
const server = http.createServer(engine.app);
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const times: number[] = [];
const outcomes = new Map<string, number>();
const started = performance.now();
for (let i = 0; i < calls; i++) {
  const t = performance.now();
  const res = await fetch(`${origin}/api/v1/anime/creature-data?resource=pokemon&id=p${i}`, { headers: { 'X-API-Key': KEY } });
  const body = (await res.json()) as { code?: string };
  times.push(performance.now() - t);
  const key = `${res.status} ${body.code ?? 'ok'}`;
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}
const total = performance.now() - started;
const sorted = [...times].sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (x: number) => `${Math.round(x)} ms`;

console.log(`${calls} calls of anime/creature-data, the upstream answering 500 after ${delayMs} ms`);
console.log(`upstream asked: ${hits} times`);
console.log(`answers: ${[...outcomes].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
console.log(`answer time: median ${ms(at(0.5))}, p95 ${ms(at(0.95))}, max ${ms(sorted.at(-1)!)}; all ${calls} calls ${ms(total)}`);

server.close();
upstream.close();
await engine.close();
process.exit(0);
