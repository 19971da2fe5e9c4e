import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { migrate, openDatabase } from '../../src/db/index.ts';
import { STATUSES } from '../../src/domain/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

describe(`migrations (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(() => t.drop());

  test('running again applies nothing', async () => {
    assert.deepEqual(await migrate(t.db), []);
  });

  // Only a server has several instances; PGlite is one process with one connection.
  const serverOnly = { skip: ENGINE !== 'postgres' && 'PostgreSQL only: PGlite admits one process per database' };
  test('two instances migrating at once apply each file once (advisory lock)', serverOnly, async () => {
    // A second database of the same server, fresh, migrated by two pools at the same time.
    const fresh = await createTestDatabase();
    await fresh.db.query('DROP SCHEMA public CASCADE');
    await fresh.db.query('CREATE SCHEMA public');
    const a = await openDatabase({ engine: 'postgres', url: fresh.url });
    const b = await openDatabase({ engine: 'postgres', url: fresh.url });
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      const files = (await readdir(new URL('../../src/db/migrations/', import.meta.url))).filter((f) =>
        f.endsWith('.sql'),
      );
      // Each file applied by exactly one of the two, and all of them applied.
      assert.deepEqual([...ra, ...rb].sort(), files.sort(), `applied ${ra} and ${rb}`);
      const rows = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      assert.equal(rows.rows[0]?.n, files.length);
    } finally {
      await a.close();
      await b.close();
      await fresh.drop();
    }
  });

  test('the status CHECK constraint mirrors the domain list', async () => {
    const r = await t.db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = 'payment_requests'::regclass AND pg_get_constraintdef(c.oid) LIKE '%status%NOT_INITIATED%'`,
    );
    const def = r.rows[0]?.def ?? '';
    const inSql = [...def.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort();
    assert.deepEqual(inSql, [...STATUSES].sort());
  });
});
