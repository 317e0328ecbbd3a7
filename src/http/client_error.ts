// Requests Node's parser refuses before any route sees them. An over-long request URI is 414
// (the spec's rule), whatever its length: up to MAX_HEAD_BYTES the parser reads it and the
// onRequest hook answers; past that the parser stops with a header overflow, answered here.
import http from 'node:http';
import type { Socket } from 'node:net';

/** URLs longer than this are refused with 414. */
export const MAX_URL_LENGTH = 8192;
/** Node's limit on a request's head (request line and headers); its default is 16 KiB. */
export const MAX_HEAD_BYTES = 64 * 1024;
export const URI_TOO_LONG_BODY = JSON.stringify({ message: '414 Request-URI Too Large' });

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d\.\d$/;
const LINE_END_OF_REQUEST_LINE = / HTTP\/\d\.\d$/;

/**
 * Whether the overflow is in the headers (431) rather than the request URI (414), judged from the
 * chunk the parser stopped in. Its first line ends the request line (` HTTP/1.1`): the URI
 * overflowed, unless that is a whole, short request line. Its first line is a header: the headers
 * did. No line end in the chunk: the middle of one long line, taken as the URI.
 */
function headersTooLarge(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet)) return false;
  const text = packet.subarray(0, MAX_HEAD_BYTES).toString('latin1');
  const eol = text.indexOf('\r\n');
  if (eol < 0) return false;
  const line = text.slice(0, eol);
  if (!LINE_END_OF_REQUEST_LINE.test(line)) return true;
  return REQUEST_LINE.test(line) && line.length <= MAX_URL_LENGTH;
}

function answer(socket: Socket, status: number, body: string): void {
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
}

export function clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    if (headersTooLarge(err.rawPacket)) answer(socket, 431, JSON.stringify({ message: '431 Request Header Fields Too Large' }));
    else answer(socket, 414, URI_TOO_LONG_BODY);
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answer(socket, 408, JSON.stringify({ message: '408 Request Timeout' }));
  } else {
    answer(socket, 400, JSON.stringify({ message: '400 Bad Request' }));
  }
  socket.destroy(err);
}
