// No work before a key, measured on the server as `npm start` runs it (its memory flags and allocator
// settings, scripts/start-command.mjs): 32 clients at once each start a 40 MB JSON body to image-host and
// /mcp without a key, the request that took the process from 149 to 354 MB resident when bodies were read
// before their key. Each is refused unread, and the resident memory stays within the lean bounds
// (docs/performance.md: under 300 MB after the hostile sweep).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../helpers/server-process.js';
import { ROOT } from '../helpers/paths.js';
import { startCommand } from '../../scripts/start-command.mjs';

const MB = 1024 * 1024;

function residentMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024);
}

/** Sends the headers of a 40 MB POST and as much of its body as the server takes until it answers; the status. */
function keylessUpload(port: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(MB, 'A');
    let sent = 0;
    let answer = '';
    const pump = () => {
      while (sent < 40 * MB && socket.writable) {
        sent += MB;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${40 * MB}\r\n\r\n{"image":"`);
      sent = 10;
      pump();
    });
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      answer += c;
      if (!answer.includes('\r\n\r\n')) return;
      resolve(Number(answer.split(' ')[1]));
      socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (answer ? resolve(Number(answer.split(' ')[1])) : reject(err)));
  });
}

test('32 parallel 40 MB bodies without a key are refused unread; resident memory stays within the lean bounds', async () => {
  const { env, flags } = startCommand(ROOT);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-keyless-'));
  const server = await startServer({ ...env, DATA_DIR: dataDir, LOG_LEVEL: 'info' }, flags);
  const port = Number(new URL(server.url).port);
  // Warm: the pages (and /mcp) loaded, so that what they cost is not counted as the bodies'.
  for (let until = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const health = (await (await fetch(`${server.url}/health`)).json()) as { warming?: unknown };
    if (health.warming === undefined) break;
    if (Date.now() > until) throw new Error('the server did not finish warming within 15 s');
  }
  const before = residentMb(server.child.pid!);
  const statuses = await Promise.all(
    Array.from({ length: 32 }, (_, i) => keylessUpload(port, i % 2 ? '/mcp' : '/api/v1/cloud-storage/image-host')),
  );
  const after = residentMb(server.child.pid!);
  expect(new Set(statuses)).toEqual(new Set([401, 413]));
  expect(after).toBeLessThan(300);
  expect(after - before).toBeLessThan(60);
  expect(await server.stop('SIGTERM')).toBe(0);
}, 60_000);
