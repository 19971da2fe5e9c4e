import http from 'node:http';
import https from 'node:https';
import { checkLiteral, type GuardPolicy, guardedLookup } from './address-guard.ts';

export interface PostTimeouts {
  /** How long the connection may take to open (the name's lookup included). */
  connectTimeoutMs: number;
  /** How long the whole exchange may take, from the start to the answer's last byte. */
  timeoutMs: number;
}

/** A POST that got no answer in time; the message is what the delivery log keeps. */
export class PostTimeout extends Error {}

/** What the endpoint answered: its status, and where a redirect pointed (never followed). */
export interface PostAnswer {
  status: number;
  location?: string;
}

// One pool of kept-alive connections per policy: a connection opened while private addresses
// were allowed is never reused for a request under the stricter policy.
const agents = {
  strict: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
  private: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

/**
 * POSTs `body` and answers the response's status, never following a redirect. Only to an
 * address the guard allows: a literal one is checked here, a name by the connection's own
 * lookup, so the address connected to is the address checked (TLS still verifies the
 * certificate against the name, sent as SNI). Two clocks: an
 * address that drops the connection attempt (a black hole) is given up after the short connect
 * timeout, a server that accepts and never answers after the whole timeout. The answer's body
 * is read and dropped (it is not ours) so the connection can be reused; the status is answered
 * as soon as it arrives.
 */
export function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  t: PostTimeouts,
  policy: GuardPolicy,
): Promise<PostAnswer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const client = secure ? https : http;
  return new Promise((resolve, reject) => {
    try {
      checkLiteral(target.hostname, policy.allowPrivate);
    } catch (err) {
      return reject(err);
    }
    let connectTimer: NodeJS.Timeout | undefined;
    const pool = agents[policy.allowPrivate ? 'private' : 'strict'];
    const req = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(policy) as unknown as http.RequestOptions['lookup'],
      // A test's own resolver gets connections of its own, never a pooled one.
      agent: policy.resolve ? false : secure ? pool.https : pool.http,
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
      const location = res.headers.location;
      resolve({ status: res.statusCode ?? 0, ...(location ? { location } : {}) });
    });
    req.on('error', (err) => {
      clearTimers();
      reject(err);
    });
    req.end(body);
  });
}
