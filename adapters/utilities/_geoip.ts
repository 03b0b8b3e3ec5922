// Where an IP address is, read on disk from adapters/utilities/geoip-data/: a binary search over sorted,
// fixed-size records with positioned reads (about 22 of 7 bytes for an IPv4 address, from the page cache),
// instead of geoip-lite's own loader, which reads all ~150 MB of its files into memory at once and keeps them.
// The folder is made from geoip-lite's files at build time by scripts/geoip-data.mjs (which describes its
// layout): the same answers in 36 MB, so that geoip-lite is only a devDependency. The data are GeoLite2-derived,
// under MaxMind's terms.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dataDir } from '../../engine/adapter.js';

export interface GeoRecord {
  country: string;
  region: string;
  city: string;
  timezone: string;
  ll: [number | null, number | null];
}

interface GeoLookup {
  lookup(ip: string): GeoRecord | null;
}

const GAP = 0xffffff;
const NO_LOCATION = 0xffffffff;
const PRIVATE_V4: Array<[number, number]> = [
  [0x0a000000, 0x0affffff],
  [0xac100000, 0xac1fffff],
  [0xc0a80000, 0xc0a8ffff],
];

class Records {
  private readonly fd: number;
  readonly count: number;
  private readonly buf: Buffer;

  constructor(
    file: string,
    readonly size: number,
  ) {
    this.fd = fs.openSync(file, 'r');
    this.count = Math.floor(fs.fstatSync(this.fd).size / size);
    this.buf = Buffer.alloc(size);
  }

  /** Record `i` (the returned buffer is reused by the next read). */
  read(i: number): Buffer {
    fs.readSync(this.fd, this.buf, 0, this.size, i * this.size);
    return this.buf;
  }

  /** The last record for which `below(record)` holds (records sorted so that it holds up to a point); -1 if none. */
  floor(below: (record: Buffer) => boolean): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (below(this.read(mid))) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}

/** A NUL-padded text field. */
const text = (b: Buffer, from: number, to: number) => {
  const s = b.toString('utf8', from, to);
  const end = s.indexOf('\0');
  return end < 0 ? s : s.slice(0, end);
};

function openTables(dir: string): GeoLookup {
  const v4 = new Records(path.join(dir, 'v4.dat'), 7);
  const v6 = new Records(path.join(dir, 'v6.dat'), 11);
  const places = new Records(path.join(dir, 'places.dat'), 12);
  const names = new Records(path.join(dir, 'names.dat'), 83);

  /** The answer of the start record `i` (its place at byte `at`); `ll` for a range with no location. */
  function answer(table: Records, i: number, at: number, ll: [number | null, number | null]): GeoRecord | null {
    if (i < 0) return null;
    const p = table.read(i).readUIntBE(at, 3);
    if (p === GAP) return null;
    const place = places.read(p);
    const location = place.readUInt32BE(0);
    if (location === NO_LOCATION) return { country: '', region: '', city: '', timezone: '', ll };
    const lat = place.readInt32BE(4) / 10000;
    const lon = place.readInt32BE(8) / 10000;
    const n = names.read(location);
    return { country: text(n, 0, 2), region: text(n, 2, 5), timezone: text(n, 5, 37), city: text(n, 37, 83), ll: [lat, lon] };
  }

  function lookup4(ip: number): GeoRecord | null {
    if (PRIVATE_V4.some(([lo, hi]) => ip >= lo && ip <= hi)) return null;
    return answer(
      v4,
      v4.floor((r) => r.readUInt32BE(0) <= ip),
      4,
      [null, null],
    );
  }

  // geoip-lite places an IPv6 address by its first 8 bytes, and answers (0, 0) where a range has no location.
  function lookup6(ip: Buffer): GeoRecord | null {
    return answer(
      v6,
      v6.floor((r) => r.compare(ip, 0, 8, 0, 8) <= 0),
      8,
      [0, 0],
    );
  }

  return {
    lookup(ip) {
      if (net.isIPv4(ip)) return lookup4(v4Number(ip));
      if (!net.isIPv6(ip)) return null;
      const mapped = /^(?:0:0:0:0:0:|::)ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
      return mapped ? lookup4(v4Number(mapped)) : lookup6(v6Bytes(ip));
    },
  };
}

const v4Number = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/** The 16 bytes of an IPv6 address (`::` expanded, a trailing dotted IPv4 part read as two groups). */
function v6Bytes(ip: string): Buffer {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  let s = ip;
  if (dotted) {
    const n = v4Number(dotted);
    s = `${ip.slice(0, -dotted.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

let opened: Promise<GeoLookup> | undefined;

/** The lookup, its files opened on first use (four file handles, no data held in memory). */
export function geoip(): Promise<GeoLookup> {
  opened ??= new Promise<GeoLookup>((resolve, reject) => {
    try {
      const dir = dataDir(import.meta.url, 'geoip-data');
      if (!fs.existsSync(path.join(dir, 'source.json'))) throw new Error(`${dir} is missing: \`npm run build\` makes it`);
      resolve(openTables(dir));
    } catch (err) {
      opened = undefined;
      reject(err);
    }
  });
  return opened;
}
