import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

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

/** The URL of a loopback port nothing listens on: a connection there is refused at once. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks/payreq`;
}

/**
 * A loopback address where a connection never opens, as with an address that drops packets: a
 * child process listens with a backlog of one and never accepts (its thread is blocked), and
 * connections opened here fill its queue, so the kernel drops every further attempt.
 */
export async function unansweredAddress(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const server = require('node:net').createServer();
       server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         process.stdout.write(server.address().port + '\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const port = Number(chunk.toString().trim());
  // More than the queue holds (two here), all at once: once two are in, the queue is full.
  const fillers: Socket[] = [];
  let connected = 0;
  await new Promise<void>((resolve) => {
    for (let i = 0; i < 6; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.on('connect', () => {
        if (++connected === 2) resolve();
      });
      fillers.push(s);
    }
  });
  return {
    url: `http://127.0.0.1:${port}/hooks/payreq`,
    async close() {
      for (const s of fillers) s.destroy();
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
