// Fresh directories under the system's temporary folder for the tests of one file, all removed after its
// last test: for stores that are opened on a directory of their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Answers a function that makes a new directory named `<prefix>XXXXXX` each time it is called. */
export function tmpDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
