// A write-ahead log with a damaged frame: SQLite's recovery drops that frame and every commit after it without
// a word, and walDamage says so beforehand. The log is taken as a crash leaves it: copied with the database
// while the writer still has it open (no checkpoint), then one byte of a frame's page flipped.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pino from 'pino';
import { openDatabase, sqliteFile } from '../../../engine/db/open.js';
import { walDamage } from '../../../engine/db/wal-check.js';
import { testApp } from '../../helpers/app.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const tmpDir = tmpDirs('uua-wal-');
const COMMITS = 20;

/**
 * A DATA_DIR whose database (migrated, its marker written) holds its last COMMITS commits in the log only, as a
 * crash leaves it: the copy's uua.sqlite path.
 */
async function crashedCopy(): Promise<string> {
  const dir = tmpDir();
  await (await openDatabase({ dataDir: dir })).close();
  const file = sqliteFile(dir);
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0;');
  for (let n = 1; n <= COMMITS; n++) db.prepare('INSERT INTO secrets (name, value) VALUES (?, ?)').run(`s${n}`, 'x'.repeat(3000));
  const copyDir = tmpDir();
  for (const f of fs.readdirSync(dir)) if (!f.endsWith('-shm')) fs.copyFileSync(path.join(dir, f), path.join(copyDir, f));
  db.close();
  return sqliteFile(copyDir);
}

/** Flips one byte of the page of frame `n` (from 1) of the file's log. */
function damageFrame(file: string, n: number) {
  const wal = fs.readFileSync(`${file}-wal`);
  const frameSize = 24 + wal.readUInt32BE(8);
  wal[32 + (n - 1) * frameSize + 24 + 100] ^= 0xff;
  fs.writeFileSync(`${file}-wal`, wal);
  return (wal.length - 32) / frameSize;
}

const secrets = (file: string) => {
  const db = new DatabaseSync(file);
  try {
    return Number((db.prepare('SELECT count(*) AS n FROM secrets').get() as { n: number }).n);
  } finally {
    db.close();
  }
};

test('an intact log: nothing to say, and every commit is there', async () => {
  const copy = await crashedCopy();
  expect(walDamage(copy)).toBeUndefined();
  expect(secrets(copy)).toBe(COMMITS);
});

test('a byte flipped in a frame: the commits from it on are named, and SQLite does drop them', async () => {
  const copy = await crashedCopy();
  const wal = fs.readFileSync(`${copy}-wal`);
  const frames = (wal.length - 32) / (24 + wal.readUInt32BE(8));
  const bad = Math.floor(frames / 2);
  damageFrame(copy, bad);
  const damage = walDamage(copy);
  expect(damage).toMatchObject({ frames, firstBad: bad });
  expect(damage!.commitsLost).toBeGreaterThan(0);
  // What the recovery kept: fewer rows, by the commits named (each insert is one commit).
  expect(secrets(copy)).toBe(COMMITS - damage!.commitsLost);
});

test('a start on a damaged log says so in its log, with the commits lost, and keeps the log as it was beside it', async () => {
  const copy = await crashedCopy();
  const frames = damageFrame(copy, 3);
  const before = fs.readFileSync(`${copy}-wal`);
  const logged: { msg: string; commitsLost?: number; keptAs?: string }[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const t = await testApp({}, { dataDir: path.dirname(copy), log });
  await t.close();
  const said = logged.find((l) => /database log is damaged/.test(l.msg));
  expect(said).toMatchObject({ frames, firstBad: 3, commitsLost: expect.any(Number) });
  expect(said!.commitsLost).toBeGreaterThan(COMMITS - 5);
  expect(fs.readFileSync(said!.keptAs!).equals(before)).toBe(true);
});

test('no log, or not a log: nothing to say', () => {
  const dir = tmpDir();
  expect(walDamage(path.join(dir, 'uua.sqlite'))).toBeUndefined();
  fs.writeFileSync(path.join(dir, 'uua.sqlite-wal'), Buffer.alloc(100, 1));
  expect(walDamage(path.join(dir, 'uua.sqlite'))).toBeUndefined();
});
