import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { type Database, migrate, openDatabase } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { type Pgbouncer, pgbouncerMissing, startPgbouncer } from '../helpers/pgbouncer.ts';

// The database layer behind PgBouncer in transaction pooling: DATABASE_URL through the pooler,
// DATABASE_DIRECT_URL to the server itself. With 3 server connections for many clients, each
// statement may land on another server connection than the last.

const skip =
  (ENGINE !== 'postgres' && 'PostgreSQL only: PGlite runs in the process, there is no pooler before it') ||
  pgbouncerMissing();

/** The advisory lock migrate() serialises on (src/db/migrate.ts). */
const MIGRATION_LOCK = 727_001;

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`still waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe(`the database behind PgBouncer in transaction pooling (${ENGINE})`, () => {
  let bouncer: Pgbouncer | undefined;
  let testDb: TestDatabase | undefined;
  let db: Database | undefined;
  const pooled = (direct: TestDatabase) => {
    const name = new URL(direct.url).pathname.slice(1);
    return openDatabase({ engine: 'postgres', url: bouncer?.url(name) ?? '', directUrl: direct.url });
  };

  before(async () => {
    if (skip) return;
    bouncer = await startPgbouncer(process.env.TEST_POSTGRES_URL ?? '', { poolSize: 3 });
    testDb = await createTestDatabase();
    db = await pooled(testDb);
  });

  after(async () => {
    await db?.close();
    await testDb?.drop();
    await bouncer?.stop();
  });

  test('statements with parameters, alone and in transactions, many at once: none relies on a session', {
    skip,
  }, async () => {
    assert.ok(db);
    const d = db;
    // A named statement lives on one server connection: through the pooler the next call would
    // find it missing ("does not exist") or another client's ("already exists").
    const sums = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const a = await d.query<{ n: number }>('SELECT $1::int + 1 AS n', [i]);
        const b = await d.transaction(async (tx) => {
          const x = await tx.query<{ n: number }>('SELECT $1::int * 2 AS n', [i]);
          const y = await tx.query<{ n: number }>('SELECT $1::int + 1 AS n', [i]);
          return (x.rows[0]?.n ?? 0) + (y.rows[0]?.n ?? 0);
        });
        return (a.rows[0]?.n ?? 0) + b;
      }),
    );
    assert.deepEqual(
      sums,
      Array.from({ length: 60 }, (_, i) => i + 1 + 2 * i + i + 1),
    );
  });

  test('a transaction asked `direct` runs on the server itself, the others through the pooler', {
    skip,
  }, async () => {
    assert.ok(db && bouncer);
    const port = 'SELECT inet_client_port() AS port';
    const [viaPool, viaDirect] = await Promise.all([
      db.transaction((tx) => tx.query<{ port: number }>(port)),
      db.transaction((tx) => tx.query<{ port: number }>(port), { direct: true }),
    ]);
    const servers = await bouncer.serverPorts();
    assert.ok(servers.has(Number(viaPool.rows[0]?.port)), 'a transaction goes through the pooler');
    assert.ok(!servers.has(Number(viaDirect.rows[0]?.port)), 'a direct transaction does not');
  });

  test('listen follows what is notified through the pooler, on a session of its own to the server', {
    skip,
  }, async () => {
    assert.ok(db && bouncer && testDb);
    const got: (string | undefined)[] = [];
    const stop = await db.listen?.('jobs_due', (payload) => got.push(payload));
    assert.ok(stop);
    try {
      // A notice sent by a statement, and one sent in a transaction (it leaves at commit).
      await db.query("SELECT pg_notify('jobs_due', 'by statement')");
      await db.transaction((tx) => tx.query("SELECT pg_notify('jobs_due', 'in a transaction')"));
      await until('both notices', () => got.length >= 2);
      assert.deepEqual(got, ['by statement', 'in a transaction']);
      // Every session that ran LISTEN is a direct one: none is a server connection of the pooler.
      const listening = await testDb.db.query<{ port: number }>(
        "SELECT client_port AS port FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'",
      );
      const servers = await bouncer.serverPorts();
      assert.ok(listening.rows.length >= 1);
      for (const r of listening.rows) assert.ok(!servers.has(Number(r.port)), `LISTEN on port ${r.port} is direct`);
    } finally {
      await stop();
    }
  });

  test('two instances migrating a new database at once through the pooler: each file once, the lock taken directly', {
    skip,
  }, async () => {
    assert.ok(bouncer);
    const fresh = await createTestDatabase();
    await fresh.db.query('DROP SCHEMA public CASCADE');
    await fresh.db.query('CREATE SCHEMA public');
    const a = await pooled(fresh);
    const b = await pooled(fresh);
    // Meanwhile, who holds or waits for the migrations' lock, from a session of the test's own.
    const lockers = new Set<number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const r = await fresh.db.query<{ port: number }>(
          `SELECT a.client_port AS port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [MIGRATION_LOCK],
        );
        for (const row of r.rows) lockers.add(Number(row.port));
      }
    })();
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      const files = (await readdir(new URL('../../src/db/migrations/', import.meta.url))).filter((f) =>
        f.endsWith('.sql'),
      );
      assert.deepEqual([...ra, ...rb].sort(), files.sort(), `applied ${ra} and ${rb}`);
      watching = false;
      await watch;
      assert.ok(lockers.size >= 1, 'the migrations took their lock');
      const servers = await bouncer.serverPorts();
      for (const p of lockers) assert.ok(!servers.has(p), `the lock's session on port ${p} is direct`);
    } finally {
      watching = false;
      await watch.catch(() => {});
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });
});
