// What SQLite's recovery of a write-ahead log will drop, told before it happens. Recovery replays the WAL's
// frames while their checksums hold and stops at the first that does not, silently: a damaged frame loses
// every commit after it (sqlite.org/fileformat.html, "The WAL File Format"). Read before any connection
// opens the file, so that the start can log what is about to be lost. node:sqlite does not expose
// sqlite3_log, where SQLite itself would say so.
import fs from 'node:fs';

const HEADER = 32;
const FRAME_HEADER = 24;
const MAGIC_LE = 0x377f0682;
const MAGIC_BE = 0x377f0683;

export interface WalDamage {
  /** Frames of the log's current generation (its salts). */
  frames: number;
  /** The frame, counting from 1, whose checksum fails: recovery stops before it. */
  firstBad: number;
  /** Committed transactions at or after it: what the recovery will drop. */
  commitsLost: number;
}

/** SQLite's WAL checksum of `data`, continuing from `s` (32-bit words in the log's byte order). */
function checksum(data: Buffer, s: [number, number], bigEndian: boolean): [number, number] {
  let [s0, s1] = s;
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const a = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const b = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + a + s1) >>> 0;
    s1 = (s1 + b + s0) >>> 0;
  }
  return [s0, s1];
}

/** The damage in `<file>-wal` that recovery will drop, or undefined when there is none (or no log). */
export function walDamage(file: string): WalDamage | undefined {
  let fd: number;
  try {
    fd = fs.openSync(`${file}-wal`, 'r');
  } catch {
    return undefined;
  }
  try {
    return damageIn(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** walDamage on an open log, read a frame at a time (a log left by a crash may be large). */
function damageIn(fd: number): WalDamage | undefined {
  const header = Buffer.alloc(HEADER);
  if (fs.readSync(fd, header, 0, HEADER, 0) < HEADER) return undefined;
  const magic = header.readUInt32BE(0);
  if (magic !== MAGIC_LE && magic !== MAGIC_BE) return undefined;
  const bigEndian = magic === MAGIC_BE;
  const pageSize = header.readUInt32BE(8);
  // Not a page size SQLite writes (a power of two, 512 to 65536): not a log it would replay.
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const salts = [header.readUInt32BE(16), header.readUInt32BE(20)];
  let sum = checksum(header.subarray(0, 24), [0, 0], bigEndian);
  // A header that fails its own checksum makes SQLite ignore the whole log: nothing of it is replayed.
  const headerOk = sum[0] === header.readUInt32BE(24) && sum[1] === header.readUInt32BE(28);
  const frame = Buffer.alloc(FRAME_HEADER + pageSize);
  let frames = 0;
  let firstBad = 0;
  let commitsLost = 0;
  for (let at = HEADER; fs.readSync(fd, frame, 0, frame.length, at) === frame.length; at += frame.length) {
    // Frames of an earlier generation (the log is reused after a checkpoint) carry other salts: not ours.
    if (frame.readUInt32BE(8) !== salts[0] || frame.readUInt32BE(12) !== salts[1]) break;
    frames++;
    if (!firstBad) {
      sum = checksum(frame.subarray(0, 8), sum, bigEndian);
      sum = checksum(frame.subarray(FRAME_HEADER), sum, bigEndian);
      if (!headerOk || sum[0] !== frame.readUInt32BE(16) || sum[1] !== frame.readUInt32BE(20)) firstBad = frames;
    }
    if (firstBad && frame.readUInt32BE(4) !== 0) commitsLost++;
  }
  return firstBad && commitsLost ? { frames, firstBad, commitsLost } : undefined;
}

/**
 * walDamage, with a copy of the damaged log kept as `<file>-wal.damaged-<time>` before SQLite opens (and
 * then overwrites) it: what a restore, or a salvage by hand, may still want.
 */
export function keptDamagedWal(file: string): (WalDamage & { keptAs: string }) | undefined {
  const damage = walDamage(file);
  if (!damage) return undefined;
  const keptAs = `${file}-wal.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  fs.copyFileSync(`${file}-wal`, keptAs);
  return { ...damage, keptAs };
}
