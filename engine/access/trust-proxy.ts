// TRUST_PROXY as a function of (address, hop): which proxies' X-Forwarded-For is believed. Compiled as
// Express compiles its `trust proxy` setting (true, a hop count, or addresses and subnets for proxy-addr),
// once for both the API and the pages (Express is handed this function), so they agree on the client address.
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

export type TrustProxy = (addr: string, hop: number) => boolean;

/** No proxy is trusted (the default): the client is the socket's peer, and X-Forwarded-For is not read. */
const TRUST_NONE: TrustProxy = () => false;

export function compileTrustProxy(value: boolean | number | string): TrustProxy {
  if (value === true) return () => true;
  if (value === false) return TRUST_NONE;
  if (typeof value === 'number') return (_addr, hop) => hop < value;
  return proxyaddr.compile(value.split(',').map((s) => s.trim()));
}

/**
 * The client's address as Express gives it under `trust`: the socket's, or behind trusted proxies the one
 * X-Forwarded-For names (undefined once the socket is gone). With no proxy trusted, what proxy-addr would
 * answer, without parsing X-Forwarded-For into a list first.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string | undefined {
  return trust === TRUST_NONE ? req.socket.remoteAddress : proxyaddr(req, trust);
}
