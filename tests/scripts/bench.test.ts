// `npm run bench` end to end, briefly: every server starts, every case is driven, every answer is a 2xx,
// and the table has a row per case with the ratio to bare Express (and, on the upstream path, to nginx). Speed itself is never asserted here
// (figures come from full runs of the bench); this keeps the bench from rotting. Two runs a case, so the
// median of interleaved runs is exercised too. Runs the build (dist/).
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/paths.js';

const root = ROOT;
const script = path.join(root, 'dist', 'scripts', 'bench.js');

/** Runs the bench with `env` over the brief settings; its exit code and everything it printed. */
async function bench(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: run \`npm run build\` (npm test does)`);
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      BENCH_SECONDS: '1',
      BENCH_WARMUP: '1',
      BENCH_CONNECTIONS: '4',
      BENCH_RUNS: '2',
      LOG_LEVEL: 'warn',
      BENCH_NO_INSTALL: '1',
      BENCH_MEDIA_MB: '4',
      BENCH_MEDIA_STREAMS: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, out };
}

test('the bench runs every case and tabulates it', async () => {
  // nginx is a baseline when the machine has it; the bench is not the place to install it for a test.
  const nginx = ['nginx', '/usr/sbin/nginx'].some((bin) => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0);
  const { code, out } = await bench({});
  expect({ code, out }).toMatchObject({ code: 0 });

  const rows = out
    .split('\n')
    .filter((l) => /^\| (bare|Fastify|ours)/.test(l))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  expect(rows.map((r) => r[0])).toEqual([
    'bare node:http hello',
    'bare Express 5 hello',
    'Fastify route + JSON schema',
    ...(nginx ? ['bare nginx proxy → fake upstream'] : []),
    'bare Node proxy (undici) → fake upstream',
    'bare node:http envelope',
    'ours: constant adapter, in-process store',
    'ours: tools/ccgen, in-process store',
    'ours: tools/ccgen, Redis store',
    'ours: creature-data cached (fake upstream)',
    'ours: creature-data uncached (fake upstream)',
    ...(nginx ? ['bare nginx proxy → fake CDN file (256 KiB)'] : []),
    'ours: media link stream → fake CDN file (256 KiB)',
  ]);
  for (const [name, rps, , , cpu, ratio, vsNginx, non2xx] of rows) {
    const upstream = name.includes('upstream') || name.includes('fake CDN');
    expect({
      name,
      rps: Number(rps) > 0,
      cpu: Number(cpu) > 0,
      ratio: /^\d+%$/.test(ratio),
      vsNginx: /^\d+%$/.test(vsNginx),
      non2xx,
    }).toEqual({ name, rps: true, cpu: true, ratio: true, vsNginx: upstream && nginx, non2xx: '0' });
  }
  expect(rows[1][5]).toBe('100%');
  // The engine's own cost: the constant endpoint against bare node:http writing the same envelope.
  expect(out).toMatch(
    /engine overhead: the constant endpoint through the whole engine runs at \d+% of bare node:http writing the same envelope \(req\/s\); \d+% by server CPU per request/,
  );
  if (nginx) expect(rows.find((r) => r[0].startsWith('bare nginx'))![6]).toBe('100%');
  // The media streams' memory: every stream whole (the bench throws otherwise) and both figures printed.
  expect(out).toMatch(
    /media streams: 4 concurrent streams of one 4 MB media link, \d+ MB\/s in all; the engine's resident memory \d+ MB idle, \d+ MB at its peak \(\+-?\d+ MB\)/,
  );
  // Ours run as npm start runs them: its environment words and Node flags, without `node` and the script.
  const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  expect(out).toContain(`ours run as npm start runs them (${start.replace(/ node /, ' ').replace(/ dist\/server\/\S+\.js$/, '')})`);
}, 300_000);

test('a build compared with BENCH_COMPARE runs each case beside its own, and each pair is given round by round', async () => {
  // This build against itself: the "before:" rows are the same engine, from the same dist/scripts.
  const { code, out } = await bench({ BENCH_ONLY: 'constant adapter', BENCH_COMPARE: path.join(root, 'dist', 'scripts') });
  expect({ code, out }).toMatchObject({ code: 0 });
  const names = out
    .split('\n')
    .filter((l) => /^\| (bare|ours|before)/.test(l))
    .map((l) => l.split('|')[1].trim());
  expect(names).toEqual([
    'bare Express 5 hello',
    'bare node:http envelope',
    'ours: constant adapter, in-process store',
    'before: constant adapter, in-process store',
  ]);
  // Two rounds: the median of two ratios is their mean, and lies within their range.
  const pair = /^\| constant adapter, in-process store \| (\S+) \[(\S+)–(\S+)\] \| (\S+) \[(\S+)–(\S+)\] \|$/m.exec(out);
  expect(pair).not.toBeNull();
  const [rps, rpsMin, rpsMax, cpu, cpuMin, cpuMax] = pair!.slice(1).map(Number);
  for (const [median, min, max] of [
    [rps, rpsMin, rpsMax],
    [cpu, cpuMin, cpuMax],
  ]) {
    expect(min).toBeGreaterThan(0);
    expect(median).toBeGreaterThanOrEqual(min - 0.001);
    expect(median).toBeLessThanOrEqual(max + 0.001);
  }
}, 300_000);

test("BENCH_TOGETHER runs each compared pair at once, on the servers' core, and gives its ratio the same way", async () => {
  const { code, out } = await bench({
    BENCH_ONLY: 'constant adapter',
    BENCH_COMPARE: path.join(root, 'dist', 'scripts'),
    BENCH_TOGETHER: '1',
  });
  expect({ code, out }).toMatchObject({ code: 0 });
  expect(out).toContain("median of 2 interleaved runs per case, each compared pair run together on the servers' core");
  const rows = out.split('\n').filter((l) => /^\| (ours|before):/.test(l));
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(row.split('|').map((c) => c.trim())[8]).toBe('0');
  expect(out).toMatch(
    /^\| constant adapter, in-process store \| \d\.\d{3} \[\d\.\d{3}–\d\.\d{3}\] \| \d\.\d{3} \[\d\.\d{3}–\d\.\d{3}\] \|$/m,
  );
}, 300_000);
