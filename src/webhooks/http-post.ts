import http from 'node:http';
import https from 'node:https';

export interface PostTimeouts {
  /** How long the connection may take to open (the name's lookup included). */
  connectTimeoutMs: number;
  /** How long the whole exchange may take, from the start to the answer's last byte. */
  timeoutMs: number;
}

/** A POST that got no answer in time; the message is what the delivery log keeps. */
export class PostTimeout extends Error {}

/**
 * POSTs `body` and answers the response's status, never following a redirect. Two clocks: an
 * address that drops the connection attempt (a black hole) is given up after the short connect
 * timeout, a server that accepts and never answers after the whole timeout. The answer's body
 * is read and dropped (it is not ours) so the connection can be reused; the status is answered
 * as soon as it arrives.
 */
export function postOnce(url: string, body: string, headers: Record<string, string>, t: PostTimeouts): Promise<number> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let connectTimer: NodeJS.Timeout | undefined;
    const req = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const wholeTimer = setTimeout(() => req.destroy(new PostTimeout('timed out')), t.timeoutMs);
    const clearTimers = () => {
      clearTimeout(connectTimer);
      clearTimeout(wholeTimer);
    };
    req.on('socket', (socket) => {
      // A kept-alive socket is already connected: only a new one has a connection to wait for.
      if (!socket.connecting) return;
      connectTimer = setTimeout(() => req.destroy(new PostTimeout('connect timed out')), t.connectTimeoutMs);
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      res.on('error', () => undefined);
      res.on('close', clearTimers);
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err) => {
      clearTimers();
      reject(err);
    });
    req.end(body);
  });
}
