import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';

const MAX = 16;
const TOKEN = 'metrics-token-for-the-test';

/** A keep-alive connection to the app, and what came back on it. */
function open(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let ended = false;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('close', () => {
      ended = true;
    });
    socket.on('error', () => {
      ended = true;
    });
    socket.once('connect', () => resolve({ socket, received: () => text, closed: () => ended }));
    socket.once('error', reject);
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

/** A new connection that was served its first request (retried while the instance is full). */
async function served(port: number): Promise<Awaited<ReturnType<typeof open>>> {
  return eventually(async () => {
    const c = await open(port);
    c.socket.write(healthz);
    await eventually(async () => (c.received().includes('200 OK') || c.closed() ? true : undefined), 'an answer');
    if (c.received().includes('200 OK')) return c;
    c.socket.destroy();
    return undefined;
  }, 'a connection served');
}

// Idle keep-alive connections must not use up the process's file descriptors: an instance holds
// at most MAX_CONNECTIONS (the next are closed at accept, counted, and logged as what they are),
// and no connection outlives CONNECTION_MAX_AGE_S however often it sends a request.
describe('open connections are bounded', { timeout: 60_000 }, () => {
  let t: ListeningApp;
  let port: number;
  const sockets: Socket[] = [];
  before(async () => {
    t = await startListeningApp({
      env: { MAX_CONNECTIONS: String(MAX), CONNECTION_MAX_AGE_S: '1', METRICS_TOKEN: TOKEN },
    });
    port = Number(new URL(t.baseUrl).port);
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await t?.close();
  });

  test('past MAX_CONNECTIONS a new connection is closed at accept and counted; a freed place serves again', async () => {
    const held: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < MAX; i++) {
      const c = await open(port);
      sockets.push(c.socket);
      c.socket.write(healthz);
      held.push(c);
    }
    await eventually(async () => (held.every((c) => c.received().includes('200 OK')) ? true : undefined), 'served');
    const extra = await open(port);
    sockets.push(extra.socket);
    extra.socket.write(healthz);
    await eventually(async () => (extra.closed() ? true : undefined), 'the connection past the cap is closed');
    assert.equal(extra.received(), '', 'nothing served past the cap');
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.match(metrics.body, /^payreq_connections_dropped_total [1-9]/m);
    // One place freed: a new connection is served.
    held[0]?.socket.destroy();
    const again = await served(port);
    assert.ok(again.received().includes('200 OK'));
    for (const s of sockets) s.destroy();
  });

  test('one request now and then does not keep a connection past CONNECTION_MAX_AGE_S', async () => {
    const c = await served(port);
    let sent = 1;
    // A request whenever the last was answered, until one is answered with Connection: close.
    await eventually(
      async () => {
        const answers = c.received().split('HTTP/1.1 200 OK').length - 1;
        if (answers === sent && !c.closed()) {
          c.socket.write(healthz);
          sent++;
        }
        return /connection: close/i.test(c.received()) ? true : undefined;
      },
      'a response closing the connection',
      15_000,
    ).catch((err: Error) => assert.fail(`${err.message}: ${c.received().slice(-400)}`));
    await eventually(async () => (c.closed() ? true : undefined), 'the connection closed by the service');
    assert.ok(sent >= 1);
  });
});
