/** HTTP over a raw socket: bytes no client library would send, and what the server made of them. */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/** The status code of an HTTP/1.x status line. */
export const statusOf = (head: string) => Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);

/** Writes raw bytes, half-closes when asked, and resolves with what came back once closed. */
export function rawExchange(port: number, bytes: Buffer, halfClose: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes);
      if (halfClose) socket.end();
    });
    const chunks: Buffer[] = [];
    // The server cuts off a request that never completes (its REQUEST_TIMEOUT_MS, a few seconds
    // in the fuzz test): a socket still open well past that is a hang, and a failure.
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer and no close within 15 s'));
    }, 15_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

/** The readiness probe over a connection of its own. */
export function readyOverHttp(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
