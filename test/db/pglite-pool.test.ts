import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, migrate } from '../../src/db/index.ts';
import { referenceSequenceName } from '../../src/domain/index.ts';
import { closeIdlePglite, pglitePoolCounts, SHARED_PROCESS, takePgliteDatabase } from '../helpers/pglite-pool.ts';

// The test suite's reused PGlite databases (test/helpers/pglite-pool.ts): a database given back
// must come out as the migrations leave it, or not come out at all. PGlite on both CI runs.

const take = () => takePgliteDatabase(migrate);

async function count(db: Database, table: string): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return r.rows[0]?.n ?? -1;
}

async function schedules(db: Database): Promise<unknown[]> {
  return (await db.query('SELECT * FROM job_schedules ORDER BY job')).rows;
}

describe('the test suite reuses a PGlite database only once it is as migrated', () => {
  // Run on its own, this file stands in for the test process that keeps instances and ends.
  before(() => {
    (globalThis as { [SHARED_PROCESS]?: boolean })[SHARED_PROCESS] = true;
  });
  after(() => closeIdlePglite());

  test('rows, identities, schedules, prepared statements, locks and notices are all reset', async () => {
    const first = await take();
    const migratedSchedules = await schedules(first);
    assert.ok(migratedSchedules.length > 0, 'the migrations insert the default schedules');
    await first.query("INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 'Hôtel A')");
    await first.query("UPDATE job_schedules SET cron = '1 2 * * *', enabled = false");
    await first.query('SELECT $1::int AS one', [1]); // a prepared statement of this Database
    await first.query('SELECT pg_advisory_lock(42)');
    await first.query('LISTEN somewhere');
    const before = { ...pglitePoolCounts };
    await first.close();
    await assert.rejects(first.query('SELECT 1'), /closed/, 'a released database answers as closed');

    const second = await take();
    try {
      assert.equal(pglitePoolCounts.reused, before.reused + 1, 'the same instance came back');
      assert.equal(await count(second, 'tenants'), 0);
      assert.deepEqual(await schedules(second), migratedSchedules);
      const lock = await second.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(42) AS ok');
      assert.equal(lock.rows[0]?.ok, true, 'the advisory lock went with the session');
      const listening = await second.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_listening_channels()');
      assert.equal(listening.rows[0]?.n, 0);
      // Its own prepared statements start again at the first name: none is left to collide with.
      assert.equal((await second.query<{ one: number }>('SELECT $1::int AS one', [1])).rows[0]?.one, 1);
      const left = await second.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
      assert.equal(left.rows[0]?.n, 1);
    } finally {
      await second.close();
    }
  });

  test('an identity starts again at 1', async () => {
    const db = await take();
    const id = await db.query<{ id: string }>(
      "INSERT INTO job_runs (job, slot) VALUES ('purge_events', now()) RETURNING id::text AS id",
    );
    assert.equal(id.rows[0]?.id, '1');
    await db.close();
    const again = await take();
    try {
      assert.equal(await count(again, 'job_runs'), 0);
      const id = await again.query<{ id: string }>(
        "INSERT INTO job_runs (job, slot) VALUES ('purge_events', now()) RETURNING id::text AS id",
      );
      assert.equal(id.rows[0]?.id, '1', 'the identity starts again');
    } finally {
      await again.close();
    }
  });

  test("a request's reference sequence goes with its tenant: the database is reused, the numbering starts again", async () => {
    const db = await take();
    const tenant = (
      await db.query<{ id: string }>(
        "INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 'Hôtel S') RETURNING id::text AS id",
      )
    ).rows[0]?.id;
    assert.ok(tenant);
    // As the service numbers a tenant's first IMPRINT of a year (src/db/payment-requests-repository.ts).
    const name = referenceSequenceName(tenant, 'IMPRINT', 2026);
    await db.query(`CREATE SEQUENCE IF NOT EXISTS ${name}`);
    assert.equal((await db.query<{ n: string }>(`SELECT nextval('${name}')::text AS n`)).rows[0]?.n, '1');
    const before = { ...pglitePoolCounts };
    await db.close();
    const again = await take();
    try {
      assert.equal(pglitePoolCounts.reused, before.reused + 1, 'the same instance came back');
      const left = await again.query<{ gone: boolean }>('SELECT to_regclass($1) IS NULL AS gone', [name]);
      assert.equal(left.rows[0]?.gone, true, 'the sequence was dropped');
      // The identities the migrations made are sequences too: they stay, and start again.
      const id = await again.query<{ id: string }>(
        "INSERT INTO job_runs (job, slot) VALUES ('purge_events', now()) RETURNING id::text AS id",
      );
      assert.equal(id.rows[0]?.id, '1');
    } finally {
      await again.close();
    }
  });

  for (const [what, change, check] of [
    [
      'a dropped index',
      'DROP INDEX payment_request_search_words',
      "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'payment_request_search'",
    ],
    ['planner statistics', 'ANALYZE tenants', "SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'tenants'"],
    [
      'a replaced function',
      "CREATE OR REPLACE FUNCTION gen_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'",
      "SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'gen_probe'",
    ],
  ] as const) {
    test(`${what}: the database is closed, the next one is new`, async () => {
      const db = await take();
      const expected = (await db.query<{ n: number }>(check)).rows[0]?.n;
      await db.query("INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 'Hôtel B')");
      if (what === 'planner statistics')
        await db.query("INSERT INTO tenants (id, name) VALUES (gen_random_uuid(), 'Hôtel C')");
      await db.query(change);
      const before = { ...pglitePoolCounts };
      await db.close();
      assert.equal(pglitePoolCounts.closed, before.closed + 1, 'not given back to the pool');
      const next = await take();
      try {
        assert.equal((await next.query<{ n: number }>(check)).rows[0]?.n, expected);
        assert.equal(await count(next, 'tenants'), 0);
      } finally {
        await next.close();
      }
    });
  }
});
