// A tool call as the REST request it stands for: GET with the arguments in the query string, POST with
// them in a JSON body (or a multipart body when a file comes as base64), carrying the key and the client
// address of the MCP connection. The REST lifecycle then decides everything (key, meter, validation).
import type { IncomingHttpHeaders } from 'node:http';
import type { InjectOptions } from 'light-my-request';
import type { EndpointSpec } from '../engine/catalog/load.js';

/** Who is calling, taken from the HTTP request that carried the MCP message. */
export interface Caller {
  headers: Record<string, string>;
  remoteAddress: string;
}

// Headers that make the injected request the same request as far as the REST lifecycle can tell:
// behind a proxy, `trust proxy` reads the client address from X-Forwarded-For as it does for REST.
const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded', 'user-agent'];

export function callerOf(headers: IncomingHttpHeaders, remoteAddress: string | undefined): Caller {
  const out: Record<string, string> = { accept: 'application/json' };
  for (const name of FORWARDED) {
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  // The key: X-API-Key, or the token of `Authorization: Bearer`, which MCP clients know how to send.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  const key = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : bearer;
  if (key !== undefined) out['x-api-key'] = key;
  return { headers: out, remoteAddress: remoteAddress ?? '127.0.0.1' };
}

export async function restRequest(spec: EndpointSpec, args: Record<string, unknown>, caller: Caller): Promise<InjectOptions> {
  const base = { url: `/api/v1/${spec.id}`, remoteAddress: caller.remoteAddress };
  if (spec.method === 'GET') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(args)) {
      if (value === undefined || value === null) continue;
      // A list or an object where one value is expected: spelt `name[]` so REST answers its own 400.
      if (typeof value === 'object') query.append(`${name}[]`, JSON.stringify(value));
      else query.append(name, String(value));
    }
    const qs = query.toString();
    return { ...base, method: 'GET', url: qs ? `${base.url}?${qs}` : base.url, headers: caller.headers };
  }
  const uploads = Object.keys(spec.params).filter(
    (n) => spec.params[n].type === 'file' && !spec.params[n].orText && typeof args[n] === 'string',
  );
  if (!uploads.length) {
    return { ...base, method: 'POST', headers: { ...caller.headers, 'content-type': 'application/json' }, payload: JSON.stringify(args) };
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (uploads.includes(name)) form.append(name, new Blob([Buffer.from(value as string, 'base64')]), name);
    else form.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  // The platform's own multipart encoder: a Response serialises the form with its boundary.
  const encoded = new Response(form);
  const payload = Buffer.from(await encoded.arrayBuffer());
  return { ...base, method: 'POST', headers: { ...caller.headers, 'content-type': encoded.headers.get('content-type')! }, payload };
}
