// package.json's `start` command taken apart, for the scripts that start the server as `npm start` does
// (scripts/measure-lean.mjs, scripts/bench.ts): its leading NAME=value words are the server's environment,
// as the shell would give them; then `node`, its flags, and the script.
import fs from 'node:fs';
import path from 'node:path';

/** @returns {{ env: Record<string, string>, flags: string[], script: string }} */
export function startCommand(root) {
  const words = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start.split(/\s+/);
  const node = words.findIndex((w) => !/^[A-Z_]+=/.test(w));
  const env = Object.fromEntries(words.slice(0, node).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { env, flags: words.slice(node + 1, -1), script: words.at(-1) };
}
