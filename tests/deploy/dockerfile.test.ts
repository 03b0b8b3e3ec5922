// deploy/Dockerfile runs the server as `npm start` does (it cannot run npm start itself: its prestart builds,
// and npm would stand between the stop signal and the server): the runtime stage's ENV holds the start
// command's environment words (glibc's allocator settings) and its CMD runs node with the same flags (V8's
// heap bounds) and script. Neither file is run here (there is no Docker daemon): this keeps them in step.
import fs from 'node:fs';
import path from 'node:path';
import { startCommand } from '../../scripts/start-command.mjs';
import { ROOT } from '../helpers/paths.js';

/** The runtime stage (the last FROM) with its continued lines joined. */
function runtimeStage(): string {
  const text = fs.readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  return text.slice(text.lastIndexOf('\nFROM '));
}

test('the image runs node with the start command’s flags and script', () => {
  const start = startCommand(ROOT);
  const cmd = runtimeStage()
    .split('\n')
    .filter((l) => l.startsWith('CMD '))
    .at(-1)!;
  expect(JSON.parse(cmd.slice(4))).toEqual(['node', ...start.flags, start.script]);
  expect(start.flags).toContain('--memory-saver-mode'); // the command read is the one shipped today
});

test('the image’s environment holds the start command’s environment words', () => {
  const env = runtimeStage()
    .split('\n')
    .filter((l) => l.startsWith('ENV '))
    .flatMap((l) => l.slice(4).trim().split(/\s+/))
    .map((w) => w.split('=') as [string, string]);
  const start = startCommand(ROOT);
  expect(Object.keys(start.env).length).toBeGreaterThan(0);
  expect(Object.fromEntries(env)).toMatchObject(start.env);
});
