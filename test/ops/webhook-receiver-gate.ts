import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as the receiver holds it: `endpoint:eventId`, and whether its sender hung up. */
export interface HeldDelivery {
  key: string;
  closed: boolean;
}

/**
 * A webhook receiver that can stop answering: while `hold()` is on, every delivery that
 * arrives (or was about to be answered) waits, unanswered, until `release()`, which answers
 * those whose sender is still connected. `accepted` counts, per delivery, the 2xx answers
 * written in full: what the hotel's system would have processed. Endpoint `n` is `/hooks/n`.
 */
export interface GatedReceiver {
  url(endpoint: number): string;
  accepted: Map<string, number>;
  /** Deliveries received, answered or not (a redelivery counts again). */
  received(): number;
  held(): readonly HeldDelivery[];
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startGatedReceiver(answerAfterMs: number): Promise<GatedReceiver> {
  const accepted = new Map<string, number>();
  let holding = false;
  let received = 0;
  let held: (HeldDelivery & { res: ServerResponse })[] = [];
  const answer = (d: HeldDelivery & { res: ServerResponse }) => {
    if (d.closed) return;
    if (holding) {
      held.push(d);
      return;
    }
    d.res.on('finish', () => accepted.set(d.key, (accepted.get(d.key) ?? 0) + 1));
    d.res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const d = { key: `${req.url?.split('/').pop()}:${req.headers['payreq-event-id']}`, closed: false, res };
      // Hung up before its answer was written in full: a sender that was killed, or gave up.
      res.on('close', () => {
        if (!res.writableFinished) d.closed = true;
      });
      // A little time in flight, so that a delivery is being sent when the instance dies.
      setTimeout(() => answer(d), answerAfterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (endpoint) => `http://127.0.0.1:${port}/hooks/${endpoint}`,
    accepted,
    received: () => received,
    held: () => held,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const waiting = held;
      held = [];
      for (const d of waiting) answer(d);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
