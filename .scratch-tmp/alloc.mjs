// allocation sampling of the constant endpoint under load (in-process server, autocannon in a child)
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path'; import http from 'node:http';
import inspector from 'node:inspector/promises'; import { spawn } from 'node:child_process';
const root = '/work/main';
const KEY = 'uua_benchkey_0123456789abcdef0123456789abcdef';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alloc-'));
fs.writeFileSync(path.join(dir, 'keys.yaml'), `- { key: ${KEY}, plan: enterprise, name: bench }\n`);
const cat = path.join(dir, 'catalog'); const ad = path.join(dir, 'adapters');
fs.mkdirSync(cat); fs.mkdirSync(path.join(ad, 'bench'), { recursive: true });
for (const f of ['plans.yaml', 'upstreams.yaml']) fs.copyFileSync(path.join(root, 'catalog', f), path.join(cat, f));
fs.writeFileSync(path.join(cat, 'bench.yaml'), `category: bench
endpoints:
  - name: constant
    method: GET
    summary: A constant answer
    adapter: bench/constant
    upstream: embedded
    params:
      bin: { type: string, required: true, description: 'A BIN', pattern: '^[0-9]{6,8}$', patternHint: 6 to 8 digits }
    response: { type: object }
`);
fs.writeFileSync(path.join(ad, 'bench/constant.js'), `export default async () => ({"card":"4571730000000008","brand":"visa"});\n`);
Object.assign(process.env, { DATA_DIR: dir, API_KEYS_FILE: path.join(dir, 'keys.yaml'), PLAN_ENTERPRISE_LIMIT: '100000000', LOG_LEVEL: 'info', CATALOG_DIR: cat });
const { createApp } = await import(root + '/dist/server/app.js');
const { app } = await createApp(process.env, { adaptersDir: ad });
const server = http.createServer(app).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${server.address().port}/api/v1/bench/constant?apikey=${KEY}&bin=457173`;
const load = (secs) => new Promise((r) => { const c = spawn(process.execPath, ['-e', `require('${root}/node_modules/autocannon')({url:'${url}',connections:50,duration:${secs}},(e,res)=>{console.log(res.requests.total)})`], { stdio: ['ignore', 'pipe', 'inherit'] }); let out=''; c.stdout.on('data', (d) => out += d); c.on('exit', () => r(Number(out.trim()))); });
await load(3);
const s = new inspector.Session(); s.connect();
await s.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
const n = await load(5);
const { profile } = await s.post('HeapProfiler.stopSampling');
const self = new Map();
const walk = (node, stack) => { const cf = node.callFrame; const u = cf.url.replace(/^.*\/work\/main\//, '').replace('file://', ''); const k = `${cf.functionName || '(anon)'} ${u}:${cf.lineNumber}`; const sz = node.selfSize; if (sz) self.set(k, (self.get(k) ?? 0) + sz); for (const c of node.children) walk(c, stack); };
walk(profile.head, []);
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log('requests', n, 'bytes/request', Math.round(total / n));
[...self].sort((a, b) => b[1] - a[1]).slice(0, 45).forEach(([k, v]) => console.log(String(Math.round(v / n)).padStart(6), k));
server.close(); process.exit(0);
