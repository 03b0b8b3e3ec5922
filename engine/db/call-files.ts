// On SQLite the request log keeps a batch's calls beside its table, not in it: appended to a file of the day
// they are dropped (DATA_DIR/request-log/<drop day>-<writer>.calls, one per writing process), the batch's row
// holding where they are (file, offset, length). SQLite's insert of a batch of 100 KB cost fifteen times a
// file's write of it, nearly all the log's writing cost (docs/decisions/request-log.md); a day's files go
// whole when its day comes, as PostgreSQL's partitions do.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where a batch's calls are: a file of the folder, the offset of their first byte, how many bytes. */
export interface CallsPlace {
  file: string;
  at: number;
  bytes: number;
}

/** A name this folder's writers give, never a path: a row's file is read only if it is one. */
const FILE = /^(\d+)-[0-9a-f]+\.calls$/;
/** Files kept open for reading; beyond it, all are closed at once. */
const READERS = 64;

export class CallFiles {
  /** This process's own files: no other writer appends to them. */
  private readonly writer = crypto.randomBytes(6).toString('hex');
  private readonly writing = new Map<number, { fd: number; file: string; size: number }>();
  private readonly reading = new Map<string, number>();

  constructor(readonly dir: string) {}

  /**
   * Appends the batches' bytes to the file of drop day `day`, in one write; answers where each went. Throws
   * when not all were written (a full disk): the next append goes to the same place.
   */
  append(day: number, pieces: readonly Uint8Array[]): CallsPlace[] {
    let w = this.writing.get(day);
    if (!w) {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const file = `${day}-${this.writer}.calls`;
      const fd = fs.openSync(path.join(this.dir, file), fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
      w = { fd, file, size: fs.fstatSync(fd).size };
      this.writing.set(day, w);
    }
    let total = 0;
    for (const p of pieces) total += p.byteLength;
    const written = fs.writevSync(w.fd, pieces, w.size);
    if (written !== total) throw new Error(`request log: ${written} of ${total} bytes written to ${w.file}`);
    const places: CallsPlace[] = [];
    let at = w.size;
    for (const p of pieces) {
      places.push({ file: w.file, at, bytes: p.byteLength });
      at += p.byteLength;
    }
    w.size = at;
    return places;
  }

  /** A batch's bytes; undefined when its file or its bytes are gone (dropped, or lost with the machine). */
  read(p: CallsPlace): Buffer | undefined {
    if (!FILE.test(p.file)) return undefined;
    let fd = this.reading.get(p.file);
    if (fd === undefined) {
      try {
        fd = fs.openSync(path.join(this.dir, p.file), 'r');
      } catch {
        return undefined;
      }
      if (this.reading.size >= READERS) this.closeReaders();
      this.reading.set(p.file, fd);
    }
    const out = Buffer.allocUnsafe(p.bytes);
    return fs.readSync(fd, out, 0, p.bytes, p.at) === p.bytes ? out : undefined;
  }

  /** Overwrites a batch's bytes with zeros (its owner's account deleted: nothing of it stays until its day). */
  erase(p: CallsPlace): void {
    if (!FILE.test(p.file)) return;
    let fd: number;
    try {
      fd = fs.openSync(path.join(this.dir, p.file), 'r+');
    } catch {
      return;
    }
    try {
      const zeros = Buffer.alloc(Math.min(p.bytes, 1 << 20));
      for (let done = 0; done < p.bytes;) done += fs.writeSync(fd, zeros, 0, Math.min(zeros.length, p.bytes - done), p.at + done);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Deletes every writer's files of the drop days up to `today`; answers how many went. */
  drop(today: number): number {
    for (const [day, w] of this.writing)
      if (day <= today) {
        fs.closeSync(w.fd);
        this.writing.delete(day);
      }
    this.closeReaders();
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return 0;
    }
    let gone = 0;
    for (const name of names) {
      const day = FILE.exec(name)?.[1];
      if (day === undefined || Number(day) > today) continue;
      fs.rmSync(path.join(this.dir, name), { force: true });
      gone++;
    }
    return gone;
  }

  close(): void {
    for (const w of this.writing.values()) fs.closeSync(w.fd);
    this.writing.clear();
    this.closeReaders();
  }

  private closeReaders(): void {
    for (const fd of this.reading.values()) fs.closeSync(fd);
    this.reading.clear();
  }
}
