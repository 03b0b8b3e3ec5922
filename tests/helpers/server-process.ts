// `npm start` as an operator runs it: the built entry point (dist/server/launch.js, which `npm test` builds
// first) in a process of its own, on a free loopback port, with its stdout's JSON lines at hand.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './paths.js';

const entry = path.join(ROOT, 'dist', 'server', 'launch.js');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stdout so far. */
  out(): string;
  /** Its stdout's JSON lines so far. */
  lines(): Record<string, unknown>[];
  /** Sends `signal` and resolves with the exit code once it has exited. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

async function freePort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Polls `check` every 50 ms until it holds, or fails naming `what` after `ms`. */
export async function waitFor(check: () => boolean, ms: number, what: string, tell: () => string = () => ''): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms${tell() ? `; ${tell()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
});

/**
 * Starts the server with `env` (and node's `flags`) and resolves once it listens. The free port is found here and released for
 * the server to take: in between, another process (the other jest worker opens ports all the time) may
 * take it first. The server then dies of EADDRINUSE and is started again on another free port; any other
 * way of failing to start fails the test. Every process started is killed after the test.
 */
export async function startServer(env: Record<string, string>, flags: string[] = []): Promise<ServerProcess> {
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does)`);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let out = '';
    let err = '';
    const child = spawn(process.execPath, [...flags, entry], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    let code: number | null | undefined;
    const exit = new Promise<number | null>((r) =>
      child.once('exit', (c) => {
        code = c;
        running.delete(child);
        r(c);
      }),
    );
    // Nothing but the start: the listening line alone is far below the 4 KiB the log buffer gathers.
    await waitFor(
      () => /listening/.test(out) || code !== undefined,
      15_000,
      'the listening line',
      () => `stdout so far: ${out.slice(0, 500)}`,
    );
    if (code === undefined) {
      const lines = () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      const stop = (signal: NodeJS.Signals) => {
        child.kill(signal);
        return exit;
      };
      return { url: `http://127.0.0.1:${port}`, child, out: () => out, lines, stop };
    }
    if (!/EADDRINUSE/.test(err) || attempt === 3) throw new Error(`the server did not start: ${err.slice(0, 1000)}`);
  }
}
