// The parts of a real cluster, started as separate processes on free loopback ports for tests/deploy/cluster.test.ts:
// the built server (dist/server/launch.js), redis-server, s3rver (S3 protocol) and Debian's nginx with
// deploy/nginx/nginx.conf. Each part can be stopped, killed and started again on the same port, and a
// load client records every answer (status, headers, or the socket error) of many concurrent requests.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER = path.join(ROOT, 'dist/server/launch.js');
const S3RVER = path.join(ROOT, 'node_modules/s3rver/bin/s3rver.js');

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin', '/sbin'])) {
    const p = path.join(dir, bin);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/** What a cluster test cannot run without, by name (empty when everything is there). */
export function missingParts(): string[] {
  const missing: string[] = [];
  if (!onPath('redis-server')) missing.push('redis-server');
  if (!onPath('nginx')) missing.push('nginx (apt-get install nginx)');
  if (!fs.existsSync(S3RVER)) missing.push('s3rver (npm ci)');
  return missing;
}

/** Compiles dist/ when it is missing or older than a source file (`npm test` has built it already). */
export function ensureBuilt(): void {
  const builtAt = fs.existsSync(SERVER) ? fs.statSync(SERVER).mtimeMs : 0;
  const newer = (dir: string): boolean =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .some((e) =>
        e.isDirectory()
          ? e.name !== 'static' && newer(path.join(dir, e.name))
          : e.name.endsWith('.ts') && fs.statSync(path.join(dir, e.name)).mtimeMs > builtAt,
      );
  if (builtAt && !['engine', 'features', 'adapters', 'portal'].some((d) => newer(path.join(ROOT, d)))) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

export function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` until it is true; fails with `what` after `ms`. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await Promise.resolve(check()).catch(() => false)) return;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A child process with its output kept in a log file (shown when a start fails). */
export class Proc {
  child: ChildProcess | undefined;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> = Promise.resolve({ code: null, signal: null });

  constructor(
    readonly name: string,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
  ) {}

  start(): this {
    const out = fs.openSync(this.logFile, 'a');
    const child = spawn(this.cmd, this.args, { env: this.env, stdio: ['ignore', out, out], cwd: ROOT });
    fs.closeSync(out);
    this.child = child;
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    return this;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    if (!this.running) return this.exit;
    this.child!.kill(signal);
    return this.exit;
  }

  log(): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8').slice(-4000) : '';
  }
}

export function redisServer(dir: string, port: number): Proc {
  // An append-only file, as deploy/compose.yaml runs it: a restarted Redis comes back with its counters.
  return new Proc(
    'redis',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir],
    process.env,
    path.join(dir, 'redis.log'),
  );
}

export function s3rver(dir: string, port: number, bucket: string): Proc {
  fs.mkdirSync(path.join(dir, 's3'), { recursive: true });
  return new Proc(
    's3rver',
    process.execPath,
    [
      S3RVER,
      '--directory',
      path.join(dir, 's3'),
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      '--configure-bucket',
      bucket,
      '--silent',
    ],
    process.env,
    path.join(dir, 's3rver.log'),
  );
}

export function instance(name: string, dir: string, env: NodeJS.ProcessEnv): Proc {
  return new Proc(name, process.execPath, [SERVER], { PATH: process.env.PATH, ...env }, path.join(dir, `${name}.log`));
}

/** nginx with deploy/nginx/nginx.conf, copied unchanged next to the two files it includes. */
export function nginx(dir: string, port: number, backends: number[]): Proc {
  const conf = path.join(dir, 'nginx');
  fs.mkdirSync(conf, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'deploy/nginx/nginx.conf'), path.join(conf, 'nginx.conf'));
  fs.writeFileSync(
    path.join(conf, 'cluster-upstreams.conf'),
    backends.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;\n`).join(''),
  );
  fs.writeFileSync(path.join(conf, 'cluster-listen.conf'), `listen 127.0.0.1:${port};\n`);
  return new Proc(
    'nginx',
    onPath('nginx')!,
    ['-p', conf, '-c', path.join(conf, 'nginx.conf'), '-g', `daemon off; pid ${path.join(conf, 'nginx.pid')};`],
    process.env,
    path.join(dir, 'nginx.log'),
  );
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The socket error (ECONNRESET, ECONNREFUSED …) when there was no answer; status is 0 then. */
  error?: string;
  startedAt: number;
  endedAt: number;
}

export interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: http.Agent;
}

export function send(url: string, o: Send = {}): Promise<Answer> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: o.method ?? 'GET',
        headers: o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)), ...o.headers } : o.headers,
        agent: o.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), startedAt, endedAt: Date.now() }),
        );
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({
            status: 0,
            headers: res.headers,
            body: Buffer.alloc(0),
            error: err.code ?? err.message,
            startedAt,
            endedAt: Date.now(),
          }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), error: err.code ?? err.message, startedAt, endedAt: Date.now() }),
    );
    req.end(o.body);
  });
}

/**
 * `clients` concurrent loops sending `next(i)` until `total` requests were sent, or until `stop()` is
 * called when `total` is Infinity. Every answer is kept, in order of sending.
 */
export function load(clients: number, total: number, next: (i: number) => { url: string } & Send) {
  const answers: Answer[] = [];
  let sent = 0;
  let stopped = false;
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const loop = async () => {
    while (!stopped && sent < total) {
      const i = sent++;
      const { url, ...o } = next(i);
      answers[i] = await send(url, { agent, ...o });
    }
  };
  const startedAt = Date.now();
  const done = Promise.all(Array.from({ length: clients }, loop)).then(() => {
    agent.destroy();
    return { answers, seconds: (Date.now() - startedAt) / 1000 };
  });
  return {
    done,
    stop: () => {
      stopped = true;
      return done;
    },
    get sent() {
      return sent;
    },
  };
}

/** Answers grouped by status (0: no answer), e.g. { 200: 300, 429: 700 }. */
export function byStatus(answers: Answer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
}
