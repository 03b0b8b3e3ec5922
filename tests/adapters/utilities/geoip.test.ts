// The on-disk reader of geoip-lite's data (adapters/utilities/_geoip.ts) answers exactly what geoip-lite's
// own in-memory loader answers, for edge addresses and a spread of IPv4 and IPv6 ones.
import { createRequire } from 'node:module';
import { geoip, type GeoRecord } from '../../../adapters/utilities/_geoip.js';

const lite = createRequire(import.meta.url)('geoip-lite') as { lookup(ip: string): GeoRecord | null };

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

test('a known address is placed, a private one is not', async () => {
  const g = await geoip();
  expect(g.lookup('8.8.8.8')?.country).toBe('US');
  expect(g.lookup('192.168.1.1')).toBeNull();
});
