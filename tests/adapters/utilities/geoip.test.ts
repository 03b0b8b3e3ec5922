// The on-disk reader (adapters/utilities/_geoip.ts) of the data files scripts/geoip-data.mjs makes from
// geoip-lite's answers exactly what geoip-lite's own in-memory loader answers: for edge addresses, a spread
// of IPv4 and IPv6 ones, and both sides of the edges of geoip-lite's own ranges, where the files' gaps and
// merged neighbours are.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { geoip, type GeoRecord } from '../../../adapters/utilities/_geoip.js';

const require = createRequire(import.meta.url);
const lite = require('geoip-lite') as { lookup(ip: string): GeoRecord | null };
const liteData = (file: string) => fs.readFileSync(path.join(path.dirname(require.resolve('geoip-lite/package.json')), 'data', file));

// A fixed spread of addresses (a linear congruential sequence), so a failure names the same address every run.
let seed = 27;
const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
const EDGES = [
  '8.8.8.8',
  '1.1.1.1',
  '0.0.0.0',
  '255.255.255.255',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '::ffff:8.8.8.8',
  '0:0:0:0:0:ffff:1.1.1.1',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::1',
  '::',
  'not an ip',
];
const V4 = Array.from({ length: 3000 }, () => [next(256), next(256), next(256), next(256)].join('.'));
const V6 = Array.from(
  { length: 1000 },
  () =>
    `2${next(0x1000).toString(16).padStart(3, '0')}:${next(65536).toString(16)}:${next(65536).toString(16)}::${next(65536).toString(16)}`,
);

const shape = (r: GeoRecord | null) => r && { country: r.country, region: r.region, city: r.city, timezone: r.timezone, ll: r.ll };

test.each([
  ['edge addresses', EDGES],
  ['IPv4', V4],
  ['IPv6', V6],
])('%s: the same answers as geoip-lite', async (_kind, ips) => {
  const mine = await geoip();
  const differ = ips.filter((ip) => JSON.stringify(shape(mine.lookup(ip))) !== JSON.stringify(shape(lite.lookup(ip))));
  expect(differ).toEqual([]);
  expect(ips.filter((ip) => mine.lookup(ip)?.country).length).toBeGreaterThan(ips.length / 10);
});

/** Addresses on both sides of the start and end of every `step`th range of a geoip-lite file. */
function rangeEdges(file: string, size: number, step: number, address: (b: Buffer, at: number, delta: bigint) => string | null) {
  const b = liteData(file);
  const ips: string[] = [];
  for (let i = 0; i < b.length / size; i += step)
    for (const [at, delta] of [
      [0, -1n],
      [0, 0n],
      [size === 24 ? 4 : 16, 0n],
      [size === 24 ? 4 : 16, 1n],
    ] as const) {
      const ip = address(b, i * size + at, delta);
      if (ip) ips.push(ip);
    }
  return ips;
}
const v4At = (b: Buffer, at: number, delta: bigint) => {
  const n = BigInt(b.readUInt32BE(at)) + delta;
  return n < 0n || n > 0xffffffffn ? null : [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join('.');
};
// geoip-lite places an IPv6 address by its first 8 bytes: the rest is set to 0 or 1.
const v6At = (b: Buffer, at: number, delta: bigint) => {
  const n = b.readBigUInt64BE(at) + delta;
  if (n < 0n || n >= 1n << 64n) return null;
  const h = n.toString(16).padStart(16, '0');
  return `${h.slice(0, 4)}:${h.slice(4, 8)}:${h.slice(8, 12)}:${h.slice(12)}::${delta === 0n ? '' : '1'}`;
};

test.each([
  ['IPv4', () => rangeEdges('geoip-city.dat', 24, 997, v4At)],
  ['IPv6', () => rangeEdges('geoip-city6.dat', 48, 331, v6At)],
])('%s: the same answers as geoip-lite on both sides of its ranges', async (_kind, edges) => {
  const mine = await geoip();
  const ips = edges();
  const differ = ips.filter((ip) => JSON.stringify(shape(mine.lookup(ip))) !== JSON.stringify(shape(lite.lookup(ip))));
  expect(differ).toEqual([]);
  expect(ips.length).toBeGreaterThan(10_000);
});

test('a known address is placed, a private one is not', async () => {
  const g = await geoip();
  expect(g.lookup('8.8.8.8')?.country).toBe('US');
  expect(g.lookup('192.168.1.1')).toBeNull();
});
