import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its raw body and headers, as the endpoint saw them. */
export interface Received {
  body: string;
  headers: IncomingMessage['headers'];
  json: { id: number; type: string; created_at: string; data: Record<string, unknown> };
}

/** How the receiver answers the nth request (0-based): a status, or 'hang' (never answers). */
export type Answer = number | 'hang';

/** A real HTTP server on loopback that records what it receives and answers as told. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `n` requests have arrived (a condition, not a sleep). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number, r: Received) => Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { body, headers: req.headers, json: JSON.parse(body) };
      const a = answer(received.length, r);
      received.push(r);
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      if (a === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/payreq`,
    received,
    waitFor(n, timeoutMs = 30_000) {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${n} requests`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
