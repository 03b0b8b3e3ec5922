// The access log's batched writer (engine/log-destination.ts): lines arrive whole and in order, in batches,
// a quiet server's lines within the flush delay, and a full pipe or a closed output never fails a request.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { logDestination } from '../engine/log-destination.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-logdest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const line = (i: number) => `{"n":${i},"pad":"${'x'.repeat(80)}"}\n`;

test('lines are held until a batch is full, then written whole and in order', () => {
  const file = path.join(dir, 'batch.log');
  const fd = fs.openSync(file, 'w');
  const out = logDestination(fd);
  out.write(line(0));
  expect(fs.readFileSync(file, 'utf8')).toBe('');
  let i = 1;
  while (fs.statSync(file).size === 0) out.write(line(i++));
  const written = fs.readFileSync(file, 'utf8');
  expect(written.length).toBeGreaterThanOrEqual(16 * 1024);
  expect(written).toBe(Array.from({ length: i }, (_, k) => line(k)).join(''));
  out.write(line(i));
  out.flushSync();
  expect(fs.readFileSync(file, 'utf8').endsWith(line(i))).toBe(true);
  fs.closeSync(fd);
});

test('a quiet server\'s lines are written within the flush delay', async () => {
  const file = path.join(dir, 'quiet.log');
  const fd = fs.openSync(file, 'w');
  const out = logDestination(fd);
  out.write(line(1));
  await new Promise((r) => setTimeout(r, 600));
  expect(fs.readFileSync(file, 'utf8')).toBe(line(1));
  fs.closeSync(fd);
});

test('a full non-blocking pipe keeps what it refused, and nothing is lost or repeated once it drains', async () => {
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  const out = logDestination(writer);
  const count = 3000; // ~280 KB, several times a pipe's 64 KiB
  for (let i = 0; i < count; i++) out.write(line(i));
  out.flushSync();
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  const drain = () => {
    for (;;) {
      try {
        const n = fs.readSync(reader, buf);
        if (n <= 0) return;
        chunks.push(Buffer.from(buf.subarray(0, n)));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return;
        throw err;
      }
    }
  };
  const expected = Array.from({ length: count }, (_, k) => line(k)).join('');
  for (let round = 0; round < 200 && Buffer.concat(chunks).length < expected.length; round++) {
    drain();
    out.flushSync();
    await new Promise((r) => setTimeout(r, 5));
  }
  drain();
  expect(Buffer.concat(chunks).toString()).toBe(expected);
  fs.closeSync(writer);
  fs.closeSync(reader);
});

test('an output that is gone never throws into the request', () => {
  const fd = fs.openSync(path.join(dir, 'gone.log'), 'w');
  fs.closeSync(fd);
  const out = logDestination(fd);
  expect(() => {
    for (let i = 0; i < 400; i++) out.write(line(i));
    out.flushSync();
  }).not.toThrow();
});
