import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { type Database, openDatabase, repositories } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { type PausableProxy, startPausableProxy } from '../helpers/pausable-proxy.ts';
import { createBody, newTenant, type TenantWithKey } from '../helpers/test-app.ts';

const TIMEOUT_MS = 1000;
const SKIP = ENGINE !== 'postgres' && 'needs a PostgreSQL server to lose: PGlite runs inside the process';

/**
 * A database outage answers 503 with Retry-After within DATABASE_TIMEOUT_MS, never a hang and
 * never a 500; the instance recovers on its own when the server is back.
 */
describe(`a database that stops answering (${ENGINE})`, { skip: SKIP }, () => {
  let testDb: TestDatabase;
  let proxy: PausableProxy;
  let db: Database;
  let app: FastifyInstance;
  let tenant: TenantWithKey;

  before(async () => {
    testDb = await createTestDatabase();
    const target = new URL(testDb.url);
    proxy = await startPausableProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(testDb.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: viaProxy.toString(),
      AUTH_CACHE_MS: '0',
      DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    db = await openDatabase(config.database, 'service', { timeoutMs: config.databaseTimeoutMs });
    app = await buildApp({ config, db });
    await app.ready();
    tenant = await newTenant(repositories(testDb.db));
  });
  after(async () => {
    await app?.close();
    await db?.close().catch(() => {});
    await proxy?.close();
    await testDb?.drop();
  });

  const list = () => app.inject({ method: 'GET', url: '/api/payment-requests/', headers: tenant.headers });

  /** Asserts the documented outage answer, and that it came within the timeout plus slack. */
  async function unavailable(send: () => ReturnType<typeof list>) {
    const t0 = performance.now();
    const r = await send();
    const ms = performance.now() - t0;
    assert.equal(r.statusCode, 503, r.body);
    assert.ok(Number(r.headers['retry-after']) > 0, 'Retry-After');
    assert.ok(ms < TIMEOUT_MS * 3, `answered in ${Math.round(ms)} ms, bound ${TIMEOUT_MS} ms`);
    return r;
  }

  test('paused (connections open, nothing answers): 503 database_unavailable with Retry-After, then recovery', async () => {
    assert.equal((await list()).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const created = await app.inject({
      method: 'POST',
      url: '/api/payment-requests/',
      headers: tenant.headers,
      payload: { ...createBody(), reservation_ref: 'OUT-GUEST' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const guestPage = `/payment/${created.json().uuid}/`;
    proxy.pause();
    try {
      const r = await unavailable(list);
      assert.equal(r.json().code, 'database_unavailable');
      assert.equal(typeof r.json().error, 'string');
      const ready = await unavailable(() => app.inject({ method: 'GET', url: '/readyz' }));
      assert.equal(ready.json().checks.database, 'unavailable');
      // Liveness: the process answers. A probe restarting it would mend nothing.
      const live = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(live.statusCode, 200, live.body);
      // The guest's page is a 503 page that says when to come back, like the API.
      const page = await unavailable(() => app.inject({ method: 'GET', url: guestPage }));
      assert.match(String(page.headers['content-type']), /^text\/html/);
      await unavailable(() =>
        app.inject({
          method: 'POST',
          url: '/api/payment-requests/',
          headers: tenant.headers,
          payload: {
            request_type: 'IMPRINT',
            guest_email: 'a@example.com',
            guest_first_name: 'A',
            guest_last_name: 'B',
            reservation_ref: 'OUT-1',
          },
        }),
      );
    } finally {
      proxy.resume();
    }
    assert.equal((await list()).statusCode, 200, 'back without a restart');
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });

  test('connections terminated and the database dropped: 503, not 500', async () => {
    const name = new URL(testDb.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    const r = await unavailable(list);
    assert.equal(r.json().code, 'database_unavailable');
    await unavailable(() => app.inject({ method: 'GET', url: '/readyz' }));
  });
});
