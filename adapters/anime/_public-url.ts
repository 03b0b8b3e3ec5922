// A caller's URL that a third party will fetch for us (trace.moe's `url=`): it never passes through our
// SSRF guard, so refuse the obvious non-public targets here: non-http(s) schemes, credentials, local
// host names, and IP literals the engine's guard would refuse (private, loopback, link-local, reserved).
// A public name that resolves to a private address is the fetching service's concern, not a way into
// our network.
import net from 'node:net';
import { invalidParam, isPublicAddress } from '../../engine/adapter.js';

const LOCAL_NAMES = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home|corp|arpa)$/i;

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
  const local = net.isIP(host) ? !isPublicAddress(host) : !host.includes('.') || LOCAL_NAMES.test(host);
  if (local) throw invalidParam(name, 'must be a public http(s) URL (not a private, loopback or local address)');
  return u;
}
