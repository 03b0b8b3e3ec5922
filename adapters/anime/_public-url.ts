// A caller's URL that a third party will fetch for us (trace.moe's `url=`): it never passes through our
// SSRF guard, so refuse the obvious non-public targets here: non-http(s) schemes, credentials, local
// host names and private, loopback, link-local or reserved IP literals. (A public name that resolves to
// a private address is the fetching service's problem, not a way into our network.)
import net from 'node:net';
import { invalidParam } from '../../engine/errors.js';

const LOCAL_NAMES = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home|corp|arpa)$/i;

function privateV4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
    || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19));
}

function privateV6(ip: string): boolean {
  const v = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  if (mapped) return privateV4(mapped[1]);
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(v)) return true; // mapped v4 in hex form: refuse rather than decode
  return v === '::' || v === '::1' || /^f[cd]/.test(v) || /^fe[89ab]/.test(v) || /^ff/.test(v) || v.startsWith('64:ff9b:') || v.startsWith('2001:db8:');
}

/** Throws a 400 naming `name` unless `value` is an http(s) URL on a public host. */
export function assertPublicUrl(name: string, value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalidParam(name, 'must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalidParam(name, 'must be an http(s) URL');
  if (u.username || u.password) throw invalidParam(name, 'must not carry credentials');
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const kind = net.isIP(host);
  const local = kind === 4 ? privateV4(host) : kind === 6 ? privateV6(host) : !host.includes('.') || LOCAL_NAMES.test(host);
  if (local) throw invalidParam(name, 'must be a public http(s) URL (not a private, loopback or local address)');
  return u;
}
