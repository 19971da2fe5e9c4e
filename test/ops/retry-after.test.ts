import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { installRetryAfter } from '../../src/api/index.ts';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/index.ts';
import { startListeningApp } from '../helpers/listening-app.ts';
import { createBody, ENGINE, startTestApp } from '../helpers/test-app.ts';

/** Every HTTP/1.1 response head in `raw`, status and headers. */
function heads(raw: string): { status: number; headers: Record<string, string> }[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((m) => ({
    status: Number(m[1]),
    headers: Object.fromEntries(
      (m[2] ?? '')
        .split('\r\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    ),
  }));
}

describe(`liveness, and Retry-After on every 503 (${ENGINE})`, () => {
  test('/healthz is liveness only: 200 with the database gone, while /readyz answers 503 with Retry-After', async () => {
    const t = await startTestApp();
    // A handle of the app's own to close under it (PGlite's test handle closes twice harmlessly;
    // a PostgreSQL pool does not, and the test's own handle must still drop the database).
    const db = ENGINE === 'postgres' ? await openDatabase(t.config.database, 'service') : t.db;
    const app = ENGINE === 'postgres' ? await buildApp({ config: t.config, db }) : t.app;
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      await db.close();
      const live = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(live.statusCode, 200, live.body);
      assert.deepEqual(live.json(), { status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503, ready.body);
      assert.ok(Number(ready.headers['retry-after']) > 0, 'Retry-After');
      assert.equal(ready.json().checks.database, 'unavailable');
    } finally {
      await app.close();
      await t.close();
    }
  });

  test('a request reaching an instance that is stopping: 503 service_stopping with Retry-After; the one in flight finishes', async () => {
    const t = await startListeningApp();
    const { port } = new URL(t.baseUrl);
    const body = JSON.stringify(createBody({ reservation_ref: 'STOPPING-1' }));
    const socket = connect(Number(port), '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (raw += d));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // A create whose body has not arrived yet holds the connection while the app closes.
      const seen = once(t.app.server, 'request');
      socket.write(
        `POST /api/payment-requests/ HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.tenant.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      await seen;
      const closing = t.app.close();
      while (t.app.server.listening) await new Promise((r) => setImmediate(r));
      // Its body, then a second request pipelined behind it on the same connection.
      socket.write(`${body}GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n`);
      await closed;
      await closing;
      const [first, second] = heads(raw);
      assert.equal(first?.status, 201, raw);
      assert.equal(second?.status, 503, raw);
      assert.ok(Number(second?.headers['retry-after']) > 0, raw);
      assert.match(raw, /"code":"service_stopping"/);
    } finally {
      socket.destroy();
      await t.app.close().catch(() => {});
      await t.testDb.drop();
    }
  });

  test('a 503 any code path sends without Retry-After gets one; one already set is kept', async () => {
    const app = Fastify({ logger: false });
    installRetryAfter(app);
    app.get('/plain', async (_request, reply) => reply.code(503).send('away'));
    app.get('/own', async (_request, reply) => reply.code(503).header('retry-after', '60').send('away'));
    app.get('/ok', async () => 'ok');
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/plain' })).headers['retry-after'], '5');
      assert.equal((await app.inject({ method: 'GET', url: '/own' })).headers['retry-after'], '60');
      assert.equal((await app.inject({ method: 'GET', url: '/ok' })).headers['retry-after'], undefined);
    } finally {
      await app.close();
    }
  });
});
