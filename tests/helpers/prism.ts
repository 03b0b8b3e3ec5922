// Stoplight Prism as a validating proxy (prism proxy --errors): a child process that forwards each request
// to the service and checks the request and the answer against the OpenAPI document. Each violation it
// finds is listed in the answer's `sl-violations` header; with --errors an answer that breaks the document
// is replaced by Prism's own 422 problem.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths.js';

export interface Prism {
  url: string;
  close(): Promise<void>;
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `prism proxy` on `document` (the JSON of the OpenAPI document) in front of `upstream`. */
export async function startPrism(document: unknown, upstream: string): Promise<Prism> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-prism-'));
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  const port = await freePort();
  const bin = path.join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, 'proxy', file, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port), '--verboseLevel', 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}): ${output.slice(-2000)}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`prism did not listen within 60 s: ${output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The violations Prism reported on an answer: its sl-violations header, or its 422 problem's list. */
export function violationsOf(status: number, headers: Headers, body: unknown): Array<{ location?: string[]; message: string }> {
  const header = headers.get('sl-violations');
  const listed: Array<{ location?: string[]; message: string }> = !header
    ? []
    : header.startsWith('Too many violations!')
      ? [{ message: header }]
      : JSON.parse(header);
  const problem = body as { type?: string; validation?: Array<{ location?: string[]; message: string }> } | undefined;
  if (status === 422 && typeof problem === 'object' && problem?.type?.includes('VIOLATIONS') && !header) return problem.validation ?? [];
  return listed;
}
