import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The largest request line and headers together the service reads: above Node's 16 KiB, so
 * that `GET /api/payment-requests/statuses/?refs=` holds the 60,000 characters its schema
 * allows (in ASCII) with the usual headers. Past it: 431 `headers_too_large`.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** What a socket-level failure answers, in the service's error shape (`error` and `code`). */
const ANSWERS: Readonly<Record<string, { status: number; code: string; error: string }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    error: `The request line and headers are over ${MAX_HEADER_BYTES / 1024} KiB`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', error: 'The request did not arrive in time' },
};
const MALFORMED = { status: 400, code: 'bad_request', error: 'The request is not valid HTTP' };

/**
 * Node answers what it cannot parse before any route sees it (a header section too large, a
 * request that did not arrive in time, bytes that are no HTTP): the answer carries the same
 * `{"error", "code"}` as every other error, then the connection is closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already answered: nothing to write to.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const a = (err.code && ANSWERS[err.code]) || MALFORMED;
  const body = JSON.stringify({ error: a.error, code: a.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
