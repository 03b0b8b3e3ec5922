// The access line is written without pino's generic serialiser (engine/infra/access-log.ts): it must be the
// line pino writes for the same fields, byte for byte, and a logger whose lines it cannot reproduce must get
// pino's own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type LoggerOptions } from 'pino';
import { jest } from '@jest/globals';
import { accessLog } from '../../../engine/infra/access-log.js';
import { loggerOptions } from '../../../engine/infra/logger.js';
import { lineBytesOf, logDestination } from '../../../engine/infra/log-destination.js';
import { logSink } from '../../helpers/log-sink.js';

/** What one logger writes for the same access entries through pino and through accessLog. */
function both(opts: LoggerOptions, entries: Parameters<ReturnType<typeof accessLog>>[], child?: Record<string, unknown>) {
  const { lines: theirs, sink: a } = logSink();
  const { lines: ours, sink: b } = logSink();
  const time = { timestamp: () => ',"time":1700000000000' };
  const make = (sink: typeof a) => (child ? pino({ ...time, ...opts }, sink).child(child) : pino({ ...time, ...opts }, sink));
  const viaPino = make(a);
  const viaOurs = accessLog(make(b));
  for (const [requestId, endpoint, method, status, ms, keyId] of entries)
    viaPino.info({ requestId, endpoint, method, status, ms, keyId }, 'request');
  for (const e of entries) viaOurs(...e);
  return { theirs, ours };
}

const entries: Parameters<ReturnType<typeof accessLog>>[] = [
  ['96637a87-29e3-461b-90f7-e78bb0281924', 'tools/ccgen', 'GET', 200, 3, '0123456789ab'],
  ['req-123', 'unmatched', 'DELETE', 404, 0, undefined],
  ['r"1\\', 'x\ny\u0001', 'GET', 500, 12345, 'caf\u00e9 \u{1f600}'],
];

test('the line is the one pino writes for the same fields', async () => {
  const { theirs, ours } = both({ level: 'info' }, entries);
  expect(ours).toHaveLength(3);
  expect(ours).toEqual(theirs);
  expect(JSON.parse(ours[2])).toMatchObject({ requestId: 'r"1\\', endpoint: 'x\ny\u0001', keyId: 'caf\u00e9 \u{1f600}' });
});

test('a lone surrogate is escaped, as JSON.stringify writes it, so the line stays valid UTF-8', async () => {
  const { ours } = both({}, [['r-1', 'e', 'GET', 200, 1, 'k\ud800']]);
  expect(ours[0]).toContain('"keyId":"k\\ud800"');
  expect(JSON.parse(ours[0]).keyId).toBe('k\ud800');
});

test("with the product's logger settings the line is put together directly, not by pino's info()", async () => {
  const { lines, sink } = logSink();
  const log = pino(loggerOptions('info'), sink);
  const info = jest.spyOn(log, 'info');
  accessLog(log)(...entries[0]);
  expect(info).not.toHaveBeenCalled();
  expect(JSON.parse(lines[0])).toMatchObject({ level: 30, requestId: entries[0][0], keyId: '0123456789ab', msg: 'request' });
  // And a logger it cannot reproduce goes through info().
  const mixed = pino({ mixin: () => ({ extra: 1 }) }, sink);
  const viaInfo = jest.spyOn(mixed, 'info');
  accessLog(mixed)(...entries[0]);
  expect(viaInfo).toHaveBeenCalledTimes(1);
});

test("the caller's clock reading is the line's time with pino's epoch clock, and ignored with any other clock", async () => {
  const { lines, sink } = logSink();
  const log = pino(loggerOptions('info'), sink);
  const now = jest.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
  const [requestId, endpoint, method, status, ms, keyId] = entries[0];
  accessLog(log)(requestId, endpoint, method, status, ms, keyId, 1_700_000_000_123);
  accessLog(log)(requestId, endpoint, method, status, ms, keyId);
  now.mockRestore();
  expect(JSON.parse(lines[0]).time).toBe(1_700_000_000_123);
  expect(JSON.parse(lines[1]).time).toBe(1_800_000_000_000);
  // Another clock (ISO times here) keeps its own reading.
  const iso = pino({ ...loggerOptions('info'), timestamp: pino.stdTimeFunctions.isoTime }, sink);
  accessLog(iso)(requestId, endpoint, method, status, ms, keyId, 1_700_000_000_123);
  expect(JSON.parse(lines[2]).time).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(JSON.parse(lines[2]).time).not.toBe(new Date(1_700_000_000_123).toISOString());
});

test("a child logger's bindings and the product's redaction come out as pino writes them", async () => {
  const { theirs, ours } = both(loggerOptions('info'), entries, { instance: 'a"b' });
  expect(ours).toEqual(theirs);
  expect(JSON.parse(ours[0]).instance).toBe('a"b');
});

test('nothing is written when the level is above info, and lines follow a change of level', async () => {
  const { lines, sink } = logSink();
  const log = pino({ level: 'warn' }, sink);
  const write = accessLog(log);
  write(...entries[0]);
  expect(lines).toHaveLength(0);
  log.level = 'debug';
  write(...entries[0]);
  expect(lines).toHaveLength(1);
});

test('a logger whose lines differ from the fixed line (a mixin, formatters, a redacted field, a prefix) gets pino’s own', async () => {
  const cases: LoggerOptions[] = [
    { mixin: () => ({ extra: 1 }) },
    { formatters: { level: (label) => ({ level: label }) } },
    { redact: ['keyId'] },
    { messageKey: 'message' },
    { nestedKey: 'entry' },
    { msgPrefix: '[api] ' },
    {
      hooks: {
        logMethod(args, method) {
          method.apply(this, [{ ...(args[0] as object), hooked: true }, ...args.slice(1)] as Parameters<typeof method>);
        },
      },
    },
  ];
  for (const opts of cases) {
    const { theirs, ours } = both(opts, entries.slice(0, 1));
    expect(ours).toEqual(theirs);
  }
  // The cases above did change the line: the fixed one would have been wrong for each.
  const plain = both({}, entries.slice(0, 1)).ours[0];
  for (const opts of cases) expect(both(opts, entries.slice(0, 1)).theirs[0]).not.toBe(plain);
});

test("through the product's log destination the line is put together in its batch, and is pino's byte for byte", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-access-'));
  const file = path.join(dir, 'access.log');
  const fd = fs.openSync(file, 'w');
  try {
    const destination = logDestination(fd);
    const log = pino(loggerOptions('info'), destination);
    const lines = lineBytesOf(destination)!;
    const close = jest.spyOn(lines, 'close');
    const cancel = jest.spyOn(lines, 'cancel');
    const write = accessLog(log);
    const NOW = 1_764_000_000_123;
    const cases: Parameters<typeof write>[] = [
      ...entries.map(([requestId, endpoint, method, status, ms, keyId]): Parameters<typeof write> => [
        requestId,
        endpoint,
        method,
        status,
        ms,
        keyId,
        NOW,
      ]),
      // Figures from 0 to many digits, and a time of a single digit.
      ['r-0', 'bench/constant', 'GET', 200, 0, 'k', 7],
      ['r-1', 'bench/constant', 'HEAD', 429, 1_000_000, undefined, 10],
      // What it does not write itself: a fraction, a negative figure, a character JSON escapes.
      ['r-2', 'tools/ccgen', 'GET', 200, 1.5, 'k', NOW],
      ['r-3', 'tools/ccgen', 'GET', 200, -1, 'k', NOW],
      ['r-4', 'tools/ccgen', 'GET', 200, 3, 'k\t', NOW],
      ['r-5', 'tools/"x"', 'GET', 200, 3, 'k', NOW],
      ['r-6', 'tools/ccgen', 'GET', 200, 3, 'caf\u00e9', NOW],
      ['r-7', 'tools/ccgen', 'GET', 200, 3, 'k\u007f', NOW],
    ];
    for (const c of cases) {
      write(...c);
      // Lines of other kinds in between keep their place.
      log.warn({ between: c[0] }, 'other');
    }
    destination.flushSync();
    // pino's own line for the same fields and time, and its warn lines.
    const { lines: theirs, sink } = logSink();
    const expected = pino({ ...loggerOptions('info'), timestamp: () => ',"time":0' }, sink);
    for (const [requestId, endpoint, method, status, ms, keyId, now] of cases) {
      expected.info({ requestId, endpoint, method, status, ms, keyId }, 'request');
      theirs[theirs.length - 1] = theirs[theirs.length - 1].replace(',"time":0', `,"time":${now}`);
      expected.warn({ between: requestId }, 'other');
    }
    const written = fs.readFileSync(file, 'utf8').split(/(?<=\n)/);
    expect(written.filter((l) => l.includes('"msg":"request"'))).toEqual(theirs.filter((l) => l.includes('"msg":"request"')));
    expect(written.map((l) => JSON.parse(l).msg)).toEqual(cases.flatMap(() => ['request', 'other']));
    expect(written.filter((l) => l.includes('"msg":"other"')).map((l) => JSON.parse(l).between)).toEqual(cases.map((c) => c[0]));
    // Put together in the batch: all but three. A request id JSON escapes (the third entry) was begun in the
    // batch and given up; the fraction and the negative were never begun. Other fields, escaped or not,
    // are written as JSON writes them.
    expect(close).toHaveBeenCalledTimes(cases.length - 3);
    expect(cancel).toHaveBeenCalledTimes(1);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// What the line leans on in pino (docs/decisions/request-path-tuning.md): internals reached through
// pino.symbols. A pino that renames or drops one, or whose line for these fields changes, must fail here,
// not fall back in silence (slower) or write lines that differ from its own.
test('guard: the pino internals the line reads are all there', () => {
  const log = pino(loggerOptions('info'), logSink().sink) as unknown as Record<symbol, unknown>;
  const symbols = pino.symbols as Record<string, symbol>;
  for (const name of [
    'asJsonSym',
    'streamSym',
    'chindingsSym',
    'timeSym',
    'lsCacheSym',
    'endSym',
    'mixinSym',
    'hooksSym',
    'needsMetadataGsym',
    'msgPrefixSym',
  ])
    expect({ name, type: typeof symbols[name] }).toEqual({ name, type: 'symbol' });
  expect(typeof log[symbols.asJsonSym]).toBe('function');
  expect(typeof (log[symbols.lsCacheSym] as Record<number, string>)[30]).toBe('string');
  expect(log[symbols.timeSym]).toBe(pino.stdTimeFunctions.epochTime);
  expect(typeof log[symbols.endSym]).toBe('string');
});

test("guard: with the product's logger and destination, every plain line is put together in the batch, never by info()", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-access-'));
  const fd = fs.openSync(path.join(dir, 'access.log'), 'w');
  try {
    const destination = logDestination(fd);
    const log = pino(loggerOptions('info'), destination).child({ instance: 'i-1' });
    const info = jest.spyOn(log, 'info');
    const close = jest.spyOn(lineBytesOf(destination)!, 'close');
    const write = accessLog(log);
    for (let i = 0; i < 50; i++)
      write(`r-${i}`, 'tools/ccgen', i % 2 ? 'GET' : 'POST', 200 + i, i, i % 3 ? 'k-1' : undefined, 1_764_000_000_000 + i);
    expect(info).not.toHaveBeenCalled();
    expect(close).toHaveBeenCalledTimes(50);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a multistream logger (pino decides per stream and level) gets pino’s own line', () => {
  const { lines, sink } = logSink();
  const log = pino({ level: 'info' }, pino.multistream([{ stream: sink, level: 'info' }]));
  const info = jest.spyOn(log, 'info');
  accessLog(log)(...entries[0]);
  expect(info).toHaveBeenCalledTimes(1);
  expect(JSON.parse(lines[0])).toMatchObject({ requestId: entries[0][0], msg: 'request' });
});
