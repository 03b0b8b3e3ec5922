// Nothing the project ships speaks of how it was developed: git holds the history. This reads every
// git-tracked text file (but binaries, lock files, the recorded fixtures and itself) and fails listing
// file:line for the phrases of a lab notebook: numbered work periods, issue numbers, "this session".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const PHRASES: RegExp[] = [
  /\bstops? \d+\b/i, // "stop 37", "stops 35–36"
  /\bstop-\d+\b/i,
  /\bissues? #?\d+\b/i, // "issue 27", "issue #12"
  /\b(in|during|of|before|after|at|since) this session\b(?!'s)/i, // not "this session's token" of a signed-in user
  /\bthis session's (changes|start|figures|bench|runs?|work|commits?)\b/i,
  /\bsession'?s (start|starting)\b/i,
  /\bat the session\b/i,
  /\b(earlier|later|previous|last|next) session\b/i,
  /\bsession \d+\b/i,
  /\b(tonight|last night)\b/i,
  /\bwhere issue\b/i,
];

const SELF = 'tests/docs/history.test.ts';
const SKIP = [/^tests\/fixtures\//, /(^|\/)package-lock\.json$/, /\.lock$/, /(^|\/)yarn\.lock$/, /(^|\/)pnpm-lock\.yaml$/];

function trackedTextFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
  return files.filter((f) => f !== SELF && !SKIP.some((re) => re.test(f)));
}

function isText(buf: Buffer): boolean {
  return !buf.subarray(0, 8000).includes(0);
}

test('no tracked text speaks of the development history', () => {
  const found: string[] = [];
  for (const file of trackedTextFiles()) {
    const full = path.join(ROOT, file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) continue;
    const buf = fs.readFileSync(full);
    if (!isText(buf)) continue;
    buf
      .toString('utf8')
      .split('\n')
      .forEach((line, i) => {
        const re = PHRASES.find((p) => p.test(line));
        if (re) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
  }
  expect(found).toEqual([]);
});
