// Makes adapters/utilities/geoip-data/ (not in git: ~50 MB) from geoip-lite's data (a devDependency: its
// 156 MB would otherwise be most of a production install). Run by `npm run build`, and by `npm start`'s
// prestart when the folder is missing; it does nothing when the folder was made from the installed version.
//
// The same answers as geoip-lite's files (adapters/utilities/_geoip.ts reads these the way it read those, and
// tests/adapters/utilities/geoip.test.ts holds it to geoip-lite), in a third of the bytes:
//   - geoip-lite's ranges (start, end, location, latitude, longitude, area) become one sorted list of starts
//     that covers every address: each range's start points at a place, and where a range ends before the next
//     one starts, a start of its own points at "no answer". The last start at or below an address answers it.
//     (Where geoip-lite's IPv6 ranges overlap, the later range wins from its start, as its search does.)
//   - a place is a (location, latitude, longitude) that some range had: 137,000 of them for 3.2 million
//     IPv4 ranges. The area (accuracy radius), metro code and EU flag, which nothing reads, are dropped.
// Files, all big-endian:
//   v4.dat      7 B: start u32, place u24 (0xffffff: no answer)
//   v6.dat     11 B: the start's first 8 bytes (all geoip-lite compares), place u24
//   places.dat 12 B: location u32 (0xffffffff: a range with no location), latitude i32, longitude i32 (×1e4)
//   names.dat  83 B: country 2, region 3, timezone 32, city 46 (geoip-lite's text fields, NUL-padded)
//   source.json     the geoip-lite version they were made from
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'adapters/utilities/geoip-data');
const FORMAT = 1;
const GAP = 0xffffff;
const NO_LOCATION = 0xffffffff;

let lite;
try {
  lite = path.dirname(createRequire(import.meta.url).resolve('geoip-lite/package.json'));
} catch {
  if (fs.existsSync(path.join(out, 'source.json'))) process.exit(0); // a production install, built before
  console.error('adapters/utilities/geoip-data/ is missing and geoip-lite is not installed: run `npm ci && npm run build`.');
  process.exit(1);
}
const version = JSON.parse(fs.readFileSync(path.join(lite, 'package.json'), 'utf8')).version;
const source = JSON.stringify({ 'geoip-lite': version, format: FORMAT });
const stamp = path.join(out, 'source.json');
if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === source) process.exit(0);

const started = Date.now();
const data = (name) => fs.readFileSync(path.join(lite, 'data', name));
const places = new Map(); // "location,lat,lon" → index
const placeRows = [];

function place(record, at) {
  const location = record.readUInt32BE(at);
  const key = location === NO_LOCATION ? 'none' : `${location},${record.readInt32BE(at + 4)},${record.readInt32BE(at + 8)}`;
  let i = places.get(key);
  if (i === undefined) {
    i = placeRows.length;
    places.set(key, i);
    const row = Buffer.alloc(12);
    row.writeUInt32BE(location, 0);
    if (location !== NO_LOCATION) record.copy(row, 4, at + 4, at + 12);
    placeRows.push(row);
  }
  return i;
}

/**
 * geoip-lite's ranges (`size`-byte records, starts and ends of `width` bytes, the location at `at`) as the
 * file of starts (`width` bytes, then the place or GAP), two neighbours never with the same place.
 */
function starts(file, size, width, at) {
  const buf = data(file);
  const n = buf.length / size;
  const read = (o) => (width === 4 ? BigInt(buf.readUInt32BE(o)) : buf.readBigUInt64BE(o));
  const endAt = width === 4 ? 4 : 16;
  const top = (1n << BigInt(width * 8)) - 1n;
  const row = width + 3;
  const rows = Buffer.alloc(2 * n * row);
  let count = 0;
  let last = -1;
  const push = (start, p) => {
    // The last range may end at the top of the address space: then its "no answer" start does not fit.
    if (p === last || start > top) return;
    if (width === 4) rows.writeUInt32BE(Number(start), count * row);
    else rows.writeBigUInt64BE(start, count * row);
    rows.writeUIntBE(p, count * row + width, 3);
    count++;
    last = p;
  };
  for (let i = 0; i < n; i++) {
    const o = i * size;
    const end = read(o + endAt);
    push(read(o), place(buf, o + at));
    // Past this range's end and before the next start (or past the last range): no answer.
    if (i + 1 === n || end + 1n < read(o + size)) push(end + 1n, GAP);
  }
  return { rows: rows.subarray(0, count * row), count };
}

fs.mkdirSync(out, { recursive: true });
fs.rmSync(stamp, { force: true });
// geoip-city.dat: start u32, end u32, location, lat, lon, area; geoip-city6.dat: start 16 B, end 16 B, then the same.
const v4 = starts('geoip-city.dat', 24, 4, 8);
// IPv6: geoip-lite compares the first 8 bytes of its 16-byte starts and ends; the start's are at 0, the end's at 16.
const v6 = starts('geoip-city6.dat', 48, 8, 32);
if (placeRows.length >= GAP) throw new Error(`${placeRows.length} places do not fit in 3 bytes`);
fs.writeFileSync(path.join(out, 'v4.dat'), v4.rows);
fs.writeFileSync(path.join(out, 'v6.dat'), v6.rows);
fs.writeFileSync(path.join(out, 'places.dat'), Buffer.concat(placeRows));

// geoip-city-names.dat: country 2, region 3, metro i32, eu 1, timezone 32, city 46 (88 B); metro and eu dropped.
const names = data('geoip-city-names.dat');
const kept = Buffer.alloc((names.length / 88) * 83);
for (let i = 0, o = 0; o < names.length; i++, o += 88) {
  names.copy(kept, i * 83, o, o + 5);
  names.copy(kept, i * 83 + 5, o + 10, o + 88);
}
fs.writeFileSync(path.join(out, 'names.dat'), kept);
fs.writeFileSync(stamp, `${source}\n`);

const bytes = fs.readdirSync(out).reduce((sum, f) => sum + fs.statSync(path.join(out, f)).size, 0);
console.log(
  `adapters/utilities/geoip-data/: ${(bytes / 1e6).toFixed(1)} MB from geoip-lite ${version} ` +
    `(${v4.count} IPv4 and ${v6.count} IPv6 starts, ${placeRows.length} places) in ${Date.now() - started} ms`,
);
