// Requests that Node's HTTP parser refuses before Express sees them (an over-long URL or header block, a
// malformed request) still get the JSON error envelope instead of Node's bare answer or a reset. No key can
// be read from such a request, so no allowance headers go with it.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const REASONS: Record<number, string> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

function answer(socket: Socket, status: number, code: string, message: string) {
  const body = JSON.stringify({ success: false, error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    // A connection that is gone, or one already answered, has nobody to tell.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      // The request line itself is what is too long (a long URL) when the packet starts with it and it is
      // long, or never ends within the packet.
      const text = (err.rawPacket ?? Buffer.alloc(0)).toString('latin1', 0, 64 * 1024);
      const eol = text.indexOf('\r\n');
      const line = eol < 0 ? text : text.slice(0, eol);
      const urlTooLong = /^[A-Z]+ /.test(line) && (eol < 0 || line.length > 8192);
      return urlTooLong
        ? answer(socket, 414, 'uri_too_long', 'The URL is too long: send long values in a POST body')
        : answer(socket, 431, 'headers_too_large', 'The request headers are too large');
    }
    answer(socket, 400, 'bad_request', 'Malformed HTTP request');
  });
}
