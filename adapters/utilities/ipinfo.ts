// Where an IP address is, in ipinfo.io's shape. The embedded GeoLite-derived data of geoip-lite answers
// offline (region as a code, no org, no hostname). Providers the operator configures answer first, in
// order: ipinfo.io (with an ipinfo key), then ip-api.com (with UPSTREAM_IP_API_URL: free for
// non-commercial use only, hence no default); any failure there hands on to the next, the embedded answer last.
// The choice is inside the adapter, not the catalog's `fallback:`: the embedded answer never fails.
import net from 'node:net';
import { ApiError, badInput, malformed, num, record, reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isBogon, normaliseIp } from './_ip-address.js';
import { geoip } from './_geoip.js';

const IPINFO_TIMEOUT_MS = 5000;

interface IpinfoAnswer {
  ip?: string;
  bogon?: boolean;
  hostname?: string;
  city?: string;
  region?: string;
  country?: string;
  loc?: string;
  timezone?: string;
  org?: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

async function embedded(ip: string) {
  const rec = (await geoip()).lookup(ip);
  const [lat, lon] = rec?.ll ?? [null, null];
  return {
    ip,
    hostname: null,
    city: str(rec?.city),
    region: str(rec?.region),
    country: str(rec?.country),
    loc: lat !== null && lon !== null ? `${lat.toFixed(4)},${lon.toFixed(4)}` : null,
    timezone: str(rec?.timezone),
    org: null,
  };
}

async function fromIpinfo(ip: string, ctx: AdapterContext<'ipinfo'>) {
  try {
    const res = await ctx.upstream('ipinfo').request<IpinfoAnswer>({ path: `/${ip}/json`, timeoutMs: IPINFO_TIMEOUT_MS });
    const b = res.body;
    if (!b || typeof b !== 'object') return undefined;
    if (b.bogon === true) return { ip, bogon: true };
    return {
      ip,
      hostname: str(b.hostname),
      city: str(b.city),
      region: str(b.region),
      country: str(b.country),
      loc: str(b.loc),
      timezone: str(b.timezone),
      org: str(b.org),
    };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.info({ code: err.code }, 'ipinfo.io failed; answering from the embedded data');
    return undefined;
  }
}

/** ip-api.com's fields that make ipinfo.io's shape; `as` is ipinfo's `org` ("AS15169 Google LLC"). */
const IP_API_FIELDS = 'status,message,countryCode,regionName,city,lat,lon,timezone,as,reverse,query';

async function fromIpApi(ip: string, ctx: AdapterContext<'ip-api'>) {
  try {
    const { body } = await ctx.upstream('ip-api').request({
      path: `/json/${ip}`,
      searchParams: { fields: IP_API_FIELDS },
      timeoutMs: IPINFO_TIMEOUT_MS,
    });
    const b = record(body);
    if (b.status === 'fail') {
      // Its words for our bogons; any other refusal ("invalid query") leaves the answer to the embedded data.
      if (b.message === 'private range' || b.message === 'reserved range') return { ip, bogon: true };
      return undefined;
    }
    if (b.status !== 'success') throw malformed();
    const lat = num(b.lat);
    const lon = num(b.lon);
    return {
      ip,
      hostname: str(b.reverse),
      city: str(b.city),
      region: str(b.regionName),
      country: str(b.countryCode),
      loc: lat !== undefined && lon !== undefined ? `${lat.toFixed(4)},${lon.toFixed(4)}` : null,
      timezone: str(b.timezone),
      org: str(b.as),
    };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.info({ code: err.code }, 'ip-api.com failed; answering from the embedded data');
    return undefined;
  }
}

const ipinfo: Adapter<'utilities/ipinfo'> = async (params, ctx) => {
  const ip = normaliseIp(params.ip ?? ctx.clientIp ?? '');
  // The catalog checks a given ip; only the caller's own address can be missing (no socket address).
  if (!net.isIP(ip)) throw badInput('Could not tell your IP address: pass the ip parameter');
  if (isBogon(ip)) return reply({ data: { ip, bogon: true }, source: 'embedded' });
  if (ctx.upstream('ipinfo').hasKeys) {
    const remote = await fromIpinfo(ip, ctx);
    if (remote) return reply({ data: remote, source: 'ipinfo' });
  }
  if (ctx.upstream('ip-api').baseUrl) {
    const remote = await fromIpApi(ip, ctx);
    if (remote) return reply({ data: remote, source: 'ip-api' });
  }
  return reply({ data: await embedded(ip), source: 'embedded' });
};

export default ipinfo;
