import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL here) that a test can pause: a
 * paused proxy holds every connection open and forwards nothing, as a network cut or a frozen
 * host would, so the client's own timeouts are what ends its wait.
 */
export interface PausableProxy {
  port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(targetHost: string, targetPort: number): Promise<PausableProxy> {
  let paused = false;
  const pairs = new Set<[Socket, Socket]>();
  const waiting = new Set<Socket>();

  const link = (client: Socket) => {
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  };

  const server: Server = createServer((client) => {
    if (!paused) return link(client);
    // Accepted, never answered, until resume().
    waiting.add(client);
    client.on('error', () => waiting.delete(client)).on('close', () => waiting.delete(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    pause() {
      paused = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
      for (const client of waiting) link(client);
      waiting.clear();
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const client of waiting) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
