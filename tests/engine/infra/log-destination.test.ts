// The access log's batched writer (engine/infra/log-destination.ts): lines arrive whole and in order, in batches,
// a quiet server's lines within the flush delay, and a full pipe or a closed output never fails a request.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineBytesOf, logDestination } from '../../../engine/infra/log-destination.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-logdest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Both ends of a named pipe, non-blocking: a reader that takes only what it is asked to read. */
function nonBlockingPipe(name: string): { reader: number; writer: number } {
  const fifo = path.join(dir, name);
  execFileSync('mkfifo', [fifo]);
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  return { reader, writer: fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) };
}

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

test("a quiet server's lines are written within the flush delay", async () => {
  const file = path.join(dir, 'quiet.log');
  const fd = fs.openSync(file, 'w');
  const out = logDestination(fd);
  out.write(line(1));
  await new Promise((r) => setTimeout(r, 600));
  expect(fs.readFileSync(file, 'utf8')).toBe(line(1));
  fs.closeSync(fd);
});

test('a full non-blocking pipe keeps what it refused, and nothing is lost or repeated once it drains', async () => {
  const { reader, writer } = nonBlockingPipe('pipe');
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

test('a line longer than the batch buffer is written whole, in its turn', () => {
  const file = path.join(dir, 'long.log');
  const fd = fs.openSync(file, 'w');
  const out = logDestination(fd);
  const long = `{"big":"${'é'.repeat(40_000)}"}\n`;
  out.write(line(1));
  out.write(long);
  out.write(line(2));
  out.flushSync();
  expect(fs.readFileSync(file, 'utf8')).toBe(line(1) + long + line(2));
  fs.closeSync(fd);
});

test('lines beyond what may wait for a pipe that stays full are dropped, and a line says how many', () => {
  const { reader, writer } = nonBlockingPipe('stuck');
  const out = logDestination(writer);
  const count = 120_000; // ~11 MB, beyond the 8 MiB that may wait
  for (let i = 0; i < count; i++) out.write(line(i));
  const buf = Buffer.alloc(1 << 20);
  const chunks: Buffer[] = [];
  // Read and flush until two reads in a row find the pipe empty (a flush in between wrote nothing more).
  for (let round = 0, empty = 0; round < 10_000 && empty < 2; round++) {
    let n = 0;
    try {
      n = fs.readSync(reader, buf);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
    if (n > 0) chunks.push(Buffer.from(buf.subarray(0, n)));
    empty = n > 0 ? 0 : empty + 1;
    out.flushSync();
  }
  const lines = Buffer.concat(chunks).toString().split('\n').filter(Boolean);
  const note = JSON.parse(lines[lines.length - 1]);
  expect(note).toMatchObject({ level: 40, msg: 'log lines dropped: the output did not keep up' });
  const kept = lines.slice(0, -1);
  // What was kept is the oldest lines, whole and in order; the count of the rest is told.
  expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => line(k).trimEnd()));
  expect(kept.length + note.dropped).toBe(count);
  fs.closeSync(writer);
  fs.closeSync(reader);
});

test('lines put together in the batch keep their place among the others, across batches', () => {
  const file = path.join(dir, 'direct.log');
  const fd = fs.openSync(file, 'w');
  const out = logDestination(fd);
  const bytes = lineBytesOf(out)!;
  const head = Buffer.from('{"n":');
  const pad = Buffer.from(`,"pad":"`);
  const end = Buffer.from('"}\n');
  const expected: string[] = [];
  for (let i = 0; i < 2000; i++) {
    if (i % 3 === 0) {
      out.write(line(i));
      expected.push(line(i));
      continue;
    }
    expect(bytes.open(200)).toBe(true);
    bytes.bytes(head);
    bytes.int(i);
    bytes.bytes(pad);
    expect(bytes.text('x'.repeat(80))).toBe(true);
    bytes.bytes(end);
    bytes.close();
    expected.push(line(i));
    // One given up on the way leaves nothing behind.
    expect(bytes.open(200)).toBe(true);
    bytes.bytes(head);
    expect(bytes.text('a"b')).toBe(false);
    bytes.cancel();
  }
  out.flushSync();
  expect(fs.readFileSync(file, 'utf8')).toBe(expected.join(''));
  // A line longer than a batch is never begun there.
  expect(bytes.open(64 * 1024 + 1)).toBe(false);
  fs.closeSync(fd);
});

test('no line is begun in the batch while a full pipe holds a backlog', () => {
  const { reader, writer } = nonBlockingPipe('backed-up');
  const out = logDestination(writer);
  const bytes = lineBytesOf(out)!;
  for (let i = 0; i < 3000; i++) out.write(line(i));
  out.flushSync();
  expect(bytes.open(200)).toBe(false);
  const buf = Buffer.alloc(1 << 20);
  for (let round = 0; round < 100; round++) {
    try {
      fs.readSync(reader, buf);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
    out.flushSync();
  }
  expect(bytes.open(200)).toBe(true);
  bytes.cancel();
  fs.closeSync(writer);
  fs.closeSync(reader);
});

test('only streams made by logDestination offer their batch', () => {
  expect(lineBytesOf(process.stdout)).toBeUndefined();
  expect(lineBytesOf({ write() {} })).toBeUndefined();
});
