// IP address helpers of ipinfo. Bogons are addresses that are not on the public internet (RFC 6890
// special-purpose and private ranges): no location exists for them, and ipinfo.io answers them with
// `bogon: true`, as we do.
import net from 'node:net';

const bogons = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  bogons.addSubnet(prefix, bits, 'ipv4');
// No ::ffff:0:0/96 here: BlockList would match every IPv4 address against it; normaliseIp unmaps those.
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  bogons.addSubnet(prefix, bits, 'ipv6');

/** True for a private, loopback, link-local, documentation, multicast or otherwise reserved address. */
export function isBogon(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return false;
  return bogons.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `::ffff:102:304`) is the IPv4 address it carries; a zone (%eth0) is local. */
export function normaliseIp(raw: string): string {
  const ip = raw
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return ip.toLowerCase();
}
