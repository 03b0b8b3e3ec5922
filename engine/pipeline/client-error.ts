// The HTTP edge: what node:http meets before or beside the pipeline still gets the JSON error envelope.
// Requests its parser refuses (an over-long URL or header block, a malformed request line or chunked body),
// a request whose headers or body stop arriving (408 after an idle time, while a slow but steady upload
// goes on), and garbage after a valid request (that request's answer is written first); CONNECT, which no
// route serves, and a client address holding too many connections at once. No key can be read from such a
// request, so no allowance headers go with these answers.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { CONTRACT_VERSION, VERSION_HEADER } from '../contract-version.js';

const VERSION_LINE = `${VERSION_HEADER}: ${CONTRACT_VERSION}\r\n`;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  414: 'URI Too Long',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
};

export interface EdgeOptions {
  /** How long a request's headers or body may stop arriving before the 408 (the connection then closes). */
  bodyIdleMs: number;
  /** How long the whole request (headers and body) may take to arrive, however steadily. */
  requestMs: number;
  /** Connections one client address may hold open; 0 or absent: no cap. */
  connectionsPerAddress?: number;
  /** Addresses never capped. Default: loopback (a local proxy, health checks, load tests on the machine). */
  uncapped?: (address: string) => boolean;
}

type Edge = Socket & { _httpMessage?: ServerResponse | null };

/** The envelope written straight to the socket (no response object exists, or it never started). */
function answer(socket: Socket, code: ErrorCode, message: string, extra = '') {
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ success: false, error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n${VERSION_LINE}${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Whatever the request's own handler still writes goes nowhere once the answer is out.
  socket.once('finish', () => socket.destroy());
}

/** The parser's error, as the envelope's code and words. */
function refusal(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): [ErrorCode, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['request_timeout', 'The request took too long to arrive'];
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The request line itself is what is too long (a long URL) when the packet starts with it and it is
    // long, or never ends within the packet.
    const text = (err.rawPacket ?? Buffer.alloc(0)).toString('latin1', 0, 64 * 1024);
    const eol = text.indexOf('\r\n');
    const line = eol < 0 ? text : text.slice(0, eol);
    const urlTooLong = /^[A-Z]+ /.test(line) && (eol < 0 || line.length > 8192);
    return urlTooLong
      ? ['uri_too_long', 'The URL is too long: send long values in a POST body']
      : ['headers_too_large', 'The request headers are too large'];
  }
  if (err.code === 'HPE_INVALID_CHUNK_SIZE' || err.code === 'HPE_STRICT' || err.code === 'HPE_INVALID_EOF_STATE')
    return ['bad_input', 'Malformed request body: the chunked encoding is broken'];
  return ['bad_input', 'Malformed HTTP request'];
}

export function guardEdges(server: Server, opts: EdgeOptions): void {
  server.requestTimeout = opts.requestMs;
  server.headersTimeout = Math.min(opts.requestMs, 60_000);
  // The socket's idle timer: Node re-arms it on every byte, so only a request that stops arriving meets it.
  server.timeout = opts.bodyIdleMs;

  // After a keep-alive answer Node turns the idle timer off for the connection's next request: back on.
  server.prependListener('request', (req: IncomingMessage) => {
    if (req.socket.timeout === 0) req.socket.setTimeout(opts.bodyIdleMs);
  });

  // The parser reports each later packet of a refused connection again: it is answered once.
  const refused = new WeakSet<Socket>();
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Edge) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    if (refused.has(socket)) return;
    refused.add(socket);
    const [code, message] = refusal(err);
    const res = socket._httpMessage;
    if (!res) return answer(socket, code, message);
    // What follows a complete request is refused only once that request's answer is out.
    if (res.req.complete && !res.writableFinished) {
      res.once('finish', () => answer(socket, code, message));
      res.once('close', () => socket.destroy());
      return;
    }
    // The request's own body is broken (chunked encoding): answered now, unless its answer already began.
    if (!res.headersSent) return answer(socket, code, message);
    socket.destroy();
  });

  // CONNECT is handed to a 'connect' listener, or the socket is closed unanswered: it gets the envelope.
  server.on('connect', (_req: IncomingMessage, socket: Socket) =>
    answer(socket, 'method_not_allowed', 'Method CONNECT is not allowed', 'Allow: GET, HEAD, POST\r\n'),
  );
  // Node answers an HTTP/1.1 request without Host with an empty 400 of its own: the app answers it in the envelope
  // (server/app.ts).
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  if (opts.connectionsPerAddress) capConnections(server, opts.connectionsPerAddress, opts.uncapped ?? isLoopback);

  server.on('timeout', (socket: Edge) => {
    const res = socket._httpMessage;
    // A request fully in, its answer being worked out (a long generation, an event stream): not idle.
    if (res?.req.complete) return;
    // Between requests, or a request whose headers never ended: nobody waits for an answer.
    if (!res) return socket.destroy();
    if (res.headersSent) return socket.destroy();
    answer(socket, 'request_timeout', `The request body stopped arriving: nothing came for ${Math.round(opts.bodyIdleMs / 1000)} s`);
  });
}

/**
 * At most `cap` open connections per client address: each holds buffers and parsers, and the large bodies
 * an address may send at once are bounded per request (engine/pipeline/large-bodies.ts), not per connection.
 */
function capConnections(server: Server, cap: number, uncapped: (address: string) => boolean): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (uncapped(address)) return;
    const n = (open.get(address) ?? 0) + 1;
    if (n > cap) {
      // Nothing it sends is read: its answer is this one.
      socket.pause();
      return answer(socket, 'quota', `Too many connections from your address: at most ${cap} at once`, 'Retry-After: 1\r\n');
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

const isLoopback = (address: string) => address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
