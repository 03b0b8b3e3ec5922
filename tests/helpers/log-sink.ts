// What a logger wrote, line by line: for the tests that prove no key, password or secret is ever logged.
import { Writable } from 'node:stream';

/** A stream to hand to pino (or to the app as its log destination), and the lines written to it so far. */
export function logSink(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, sink };
}
