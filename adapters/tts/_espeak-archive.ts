// eSpeak NG's data files read from the package's archive on disk when eSpeak reads them, instead of held
// whole. The package's file packager reads its 24 MB archive (espeak-ng.data: the phoneme tables, every
// voice and 117 dictionaries) into memory and lays each file out in Emscripten's in-memory file system as a
// view of that one buffer, so all of it stays resident although a voice reads its own dictionary only
// (en_dict is 167 kB; ru_dict alone is 8.5 MB).
//
// Emscripten lets the caller hand the archive over (`getPreloadedPackage`): we hand it a zero-filled buffer of
// the right size, which the kernel maps without backing it until written, so the packager lays out every
// file (path, offset, length) without a byte being read. Then each file's `contents` becomes a getter that
// reads its bytes from the archive with one positioned read. eSpeak copies what it reads into its own heap
// (a dictionary is read whole on each set_voice), so the bytes read are held only weakly: a file read
// twice in one synchronous call is read once, and the garbage collector may drop it after.
import fs from 'node:fs';

/** The few members of Emscripten's FS object used here. */
export interface EmscriptenFS {
  readdir(path: string): string[];
  stat(path: string): { mode: number };
  isDir(mode: number): boolean;
  lookupPath(path: string): { node: { contents: Uint8Array | null; usedBytes: number } };
}

/** Where the package's file packager puts eSpeak's data (its own `/usr/share/espeak-ng-data`). */
export const DATA_ROOT = '/usr/share/espeak-ng-data';

export class ArchiveOnDemand {
  private archive: string | undefined;

  /** For the module's options: the packager asks for its archive by path and size. */
  readonly getPreloadedPackage = (archive: string, size: number): ArrayBuffer => {
    const onDisk = fs.statSync(archive).size;
    if (onDisk !== size) throw new Error(`eSpeak NG's archive ${archive} is ${onDisk} bytes, its loader expects ${size}`);
    this.archive = archive;
    return new ArrayBuffer(size);
  };

  /**
   * Once the module is created: points every file the packager laid out at its bytes on disk. Returns their
   * count; 0 when the packager never asked (another build of the package): its files are then in memory,
   * as the package made them, which costs memory but answers the same.
   */
  serve(FS: EmscriptenFS): number {
    const archive = this.archive;
    if (!archive) return 0;
    let files = 0;
    const walk = (dir: string): void => {
      for (const name of FS.readdir(dir)) {
        if (name === '.' || name === '..') continue;
        const path = `${dir}/${name}`;
        if (FS.isDir(FS.stat(path).mode)) {
          walk(path);
          continue;
        }
        const { node } = FS.lookupPath(path);
        if (!node.contents) continue;
        const offset = node.contents.byteOffset;
        const length = node.usedBytes;
        let held: WeakRef<Uint8Array> | undefined;
        Object.defineProperty(node, 'contents', {
          get(): Uint8Array {
            let bytes = held?.deref();
            if (!bytes) {
              bytes = readAt(archive, offset, length);
              held = new WeakRef(bytes);
            }
            return bytes;
          },
        });
        files++;
      }
    };
    walk(DATA_ROOT);
    return files;
  }
}

function readAt(file: string, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const fd = fs.openSync(file, 'r');
  try {
    let at = 0;
    while (at < length) {
      const n = fs.readSync(fd, bytes, at, length - at, offset + at);
      if (n === 0) throw new Error(`eSpeak NG's archive ${file} ends before byte ${offset + length}`);
      at += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}
