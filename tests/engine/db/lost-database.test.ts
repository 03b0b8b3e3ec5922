// A database that was there and is gone is refused at start: the first start writes DATA_DIR/uua.installed,
// and a later one that finds it beside a missing, empty (0 bytes) or table-less uua.sqlite stops with what
// to do. A new DATA_DIR starts as a new install, and so does one whose marker was deleted on purpose.
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { installedMarker, openDatabase, sqliteFile } from '../../../engine/db/open.js';
import { testApp } from '../../helpers/app.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const tmpDir = tmpDirs('uua-lost-');

async function installed(): Promise<string> {
  const dir = tmpDir();
  const opened = await openDatabase({ dataDir: dir });
  await opened.close();
  return dir;
}

test('a new DATA_DIR starts and writes the marker; a second start on the same database goes on', async () => {
  const dir = await installed();
  expect(fs.readFileSync(installedMarker(dir), 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT.*uua\.sqlite created here/);
  const again = await openDatabase({ dataDir: dir });
  await again.close();
});

test.each([
  ['missing', (file: string) => fs.rmSync(file)],
  ['empty (0 bytes)', (file: string) => fs.truncateSync(file, 0)],
  [
    'without its tables',
    (file: string) => {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
      new DatabaseSync(file).exec('CREATE TABLE docs (id TEXT)');
    },
  ],
])('a uua.sqlite %s beside the marker is refused, saying what to do', async (state, lose) => {
  const dir = await installed();
  lose(sqliteFile(dir));
  const message = `${sqliteFile(dir)} is ${state}, but this DATA_DIR held a database`;
  await expect(openDatabase({ dataDir: dir })).rejects.toThrow(message);
  // The server's start too, before the counters' store would make a new file.
  await expect(testApp({}, { dataDir: dir })).rejects.toThrow(/restore uua\.sqlite from a backup .*delete .*uua\.installed/);
  expect(fs.existsSync(sqliteFile(dir)) && fs.statSync(sqliteFile(dir)).size > 0).toBe(state === 'without its tables');
});

test('with the marker deleted on purpose, an emptied DATA_DIR starts as a new install', async () => {
  const dir = await installed();
  fs.truncateSync(sqliteFile(dir), 0);
  fs.rmSync(installedMarker(dir));
  const t = await testApp({}, { dataDir: dir });
  await t.close();
  expect(fs.existsSync(installedMarker(dir))).toBe(true);
});
