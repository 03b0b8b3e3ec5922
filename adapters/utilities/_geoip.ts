// Where an IP address is, read from geoip-lite's data files on disk: a binary search over their sorted,
// fixed-size records with positioned reads (about 22 of 24 bytes for an IPv4 address, from the page cache),
// instead of geoip-lite's own loader, which reads all ~150 MB into memory at once and keeps it there.
// The files (and so the answers) are geoip-lite's: GeoLite2-derived, under MaxMind's terms.
//
// Their layout (geoip-lite's lib/geoip.js, which this reads the same way):
//   geoip-city.dat        24 B: start u32, end u32, location u32, latitude i32, longitude i32 (×1e4), area u32
//   geoip-city6.dat       48 B: start 16 B, end 16 B, then the same four fields; ranges compared on their
//                         first 8 bytes, as geoip-lite does
//   geoip-city-names.dat  88 B: country 2, region 3, metro i32, eu 1, timezone 32, city 46 (NUL-padded)
// A location of 0xffffffff means "no location".
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

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

  /** The last record whose start is at or below `key`, by `cmp(record, key)` of the starts; -1 if none. */
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
  const city = new Records(path.join(dir, 'geoip-city.dat'), 24);
  const city6 = new Records(path.join(dir, 'geoip-city6.dat'), 48);
  const names = new Records(path.join(dir, 'geoip-city-names.dat'), 88);

  function located(record: Buffer, at: number, ll: [number | null, number | null]): GeoRecord {
    const location = record.readUInt32BE(at);
    if (location === NO_LOCATION) return { country: '', region: '', city: '', timezone: '', ll };
    const lat = record.readInt32BE(at + 4) / 10000;
    const lon = record.readInt32BE(at + 8) / 10000;
    const n = names.read(location);
    return { country: text(n, 0, 2), region: text(n, 2, 5), timezone: text(n, 10, 42), city: text(n, 42, 88), ll: [lat, lon] };
  }

  function lookup4(ip: number): GeoRecord | null {
    if (PRIVATE_V4.some(([lo, hi]) => ip >= lo && ip <= hi)) return null;
    const i = city.floor((r) => r.readUInt32BE(0) <= ip);
    if (i < 0) return null;
    const r = city.read(i);
    return r.readUInt32BE(4) >= ip ? located(r, 8, [null, null]) : null;
  }

  function lookup6(ip: Buffer): GeoRecord | null {
    const key = ip.subarray(0, 8);
    const i = city6.floor((r) => r.compare(key, 0, 8, 0, 8) <= 0);
    if (i < 0) return null;
    const r = city6.read(i);
    return r.compare(key, 0, 8, 16, 24) >= 0 ? located(r, 32, [0, 0]) : null;
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

/** The lookup, its files opened on first use (three file handles, no data held in memory). */
export function geoip(): Promise<GeoLookup> {
  opened ??= new Promise<GeoLookup>((resolve, reject) => {
    try {
      resolve(openTables(path.join(path.dirname(createRequire(import.meta.url).resolve('geoip-lite/package.json')), 'data')));
    } catch (err) {
      opened = undefined;
      reject(err);
    }
  });
  return opened;
}
