import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Database, deleteRequest, migrate, repositories } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/**
 * The back office's search text lives in payment_request_search (migration 0153), kept by
 * triggers: whoever writes payment_requests, the search finds what the request holds now.
 */
describe(`the search table follows the requests (${ENGINE})`, () => {
  let t: TestDatabase;
  const tenant = randomUUID();
  before(async () => {
    t = await createTestDatabase();
    await t.db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'Hôtel du Lac')`, [tenant]);
  });
  after(() => t.drop());

  /** `count` requests in one statement, as a bulk insert writes them. */
  const insertRequests = (db: Database, prefix: string, count: number) =>
    db.query<{ id: string }>(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at)
       SELECT gen_random_uuid(), $1, $2 || '-2026-' || g, 'IMPRINT', 'NOT_INITIATED', 15000, 'EUR',
              'Guest' || g || '@Example.com', 'Jeanne', 'Martin', 'fr', 'RES-' || $2 || g, '{}'::jsonb,
              now() + interval '30 days'
         FROM generate_series(1, $3::int) g
       RETURNING id`,
      [tenant, prefix, count],
    );

  const searchRow = async (id: string) =>
    (
      await t.db.query<{ reference: string; guest_email: string; words: string; xmin: string }>(
        'SELECT reference, guest_email, words, xmin::text AS xmin FROM payment_request_search WHERE payment_request_id = $1',
        [id],
      )
    ).rows[0];

  const found = async (text: string) =>
    (await repositories(t.db).controlRequests.list({ tenantId: tenant, text, limit: 51 })).rows.map((r) => r.id);

  test('every request inserted has its row, the text lowered as the searches compare it', async () => {
    const ids = (await insertRequests(t.db, 'BULK', 3)).rows.map((r) => r.id);
    for (const [i, id] of ids.entries()) {
      const row = await searchRow(id);
      assert.equal(row?.reference, `bulk-2026-${i + 1}`);
      assert.equal(row?.guest_email, `guest${i + 1}@example.com`);
      assert.equal(row?.words, `bulk-2026-${i + 1} res-bulk${i + 1} jeanne martin guest${i + 1}@example.com`);
    }
    assert.deepEqual(await found('BULK-2026-2'), [ids[1]], 'a prefix, whatever its case');
    assert.equal((await found('Jeanne')).length >= 3, true, 'a word');
  });

  test('setting a searched column changes what is found; a status change does not touch the row', async () => {
    const [id] = (await insertRequests(t.db, 'EDIT', 1)).rows.map((r) => r.id) as [string];
    const before = await searchRow(id);
    await t.db.query(
      "UPDATE payment_requests SET status = 'PENDING', updated_at = now() + interval '1 second' WHERE id = $1",
      [id],
    );
    assert.equal((await searchRow(id))?.xmin, before?.xmin, 'a status change leaves the search row as it was');

    await t.db.query("UPDATE payment_requests SET guest_last_name = 'Dupont-Aignan' WHERE id = $1", [id]);
    assert.match((await searchRow(id))?.words ?? '', / jeanne dupont-aignan /);
    assert.deepEqual(await found('dupont-aig'), [id]);
    assert.equal((await found('EDIT-2026-1')).includes(id), true);
  });

  test("a search of one hotel finds none of another hotel's requests with the same text", async () => {
    const other = randomUUID();
    await t.db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'Hôtel des Alpes')`, [other]);
    const [mine, moved] = (await insertRequests(t.db, 'PAIR', 2)).rows.map((r) => r.id) as [string, string];
    await t.db.query('UPDATE payment_requests SET tenant_id = $1 WHERE id = $2', [other, moved]);
    assert.deepEqual(await found('pair-2026-1'), [mine], 'prefix');
    assert.deepEqual((await found('air-2026-2')).length, 0, "words: the other hotel's match is not shown");
    const theirList = await repositories(t.db).controlRequests.list({ tenantId: other, text: 'air-2026-2', limit: 51 });
    assert.deepEqual(
      theirList.rows.map((r) => r.id),
      [moved],
      'the search row followed the request to its hotel',
    );
  });

  test("a search row that names another hotel than its request's shows that hotel nothing", async () => {
    // Only with the triggers bypassed (plain SQL on the search table): the reads check the hotel.
    const other = randomUUID();
    await t.db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'Hôtel du Port')`, [other]);
    const [id] = (await insertRequests(t.db, 'STRAY', 1)).rows.map((r) => r.id) as [string];
    await t.db.query('UPDATE payment_request_search SET tenant_id = $1 WHERE payment_request_id = $2', [other, id]);
    const repos = repositories(t.db);
    const theirs = { tenantId: other, text: 'stray-2026-1', limit: 51 };
    assert.deepEqual((await repos.controlRequests.list(theirs)).rows, [], 'the list');
    assert.deepEqual(await repos.exports.requests(theirs, 'prefix', undefined, 100), [], 'the export');
    assert.deepEqual(await repos.exports.totals(theirs, 'prefix', 1000), [], 'the totals');
  });

  test('a deleted request takes its row with it', async () => {
    const [id] = (await insertRequests(t.db, 'GONE', 1)).rows.map((r) => r.id) as [string];
    assert.ok(await searchRow(id));
    const deleted = await deleteRequest(t.db, {
      tenantId: tenant,
      id,
      deletable: ['NOT_INITIATED'],
      actor: { source: 'api', actor: 'test' },
    });
    assert.equal(deleted?.reference, 'GONE-2026-1');
    assert.equal(await searchRow(id), undefined);
  });

  test('migration 0153 gives the requests already there their rows', async () => {
    const [id] = (await insertRequests(t.db, 'OLD', 1)).rows.map((r) => r.id) as [string];
    // The schema as 0152 left it: the search indexes on payment_requests, no search table.
    for (const sql of [
      'DROP TABLE payment_request_search',
      'DROP TRIGGER payment_requests_search_added ON payment_requests',
      'DROP TRIGGER payment_requests_search_changed ON payment_requests',
      'DROP TRIGGER payment_requests_search_removed ON payment_requests',
      'DROP FUNCTION payreq_search_row_added(), payreq_search_row_changed(), payreq_search_rows_removed()',
      `CREATE INDEX payment_requests_search ON payment_requests USING gin (
         lower(reference || ' ' || reservation_ref || ' ' || guest_first_name || ' ' || guest_last_name || ' ' || guest_email)
         gin_trgm_ops)`,
      'CREATE INDEX payment_requests_reference_prefix ON payment_requests (lower(reference) text_pattern_ops)',
      'CREATE INDEX payment_requests_reservation_prefix ON payment_requests (lower(reservation_ref) text_pattern_ops)',
      'CREATE INDEX payment_requests_email_prefix ON payment_requests (lower(guest_email) text_pattern_ops)',
      "DELETE FROM schema_migrations WHERE name = '0153_search_text_table.sql'",
    ])
      await t.db.query(sql);
    await insertRequests(t.db, 'LATE', 1);

    assert.deepEqual(await migrate(t.db), ['0153_search_text_table.sql']);

    assert.equal((await searchRow(id))?.reference, 'old-2026-1');
    assert.equal((await found('late-2026-1')).length, 1, 'a request written before the table existed');
    const left = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_indexes
        WHERE tablename = 'payment_requests' AND indexname IN ('payment_requests_search',
              'payment_requests_reference_prefix', 'payment_requests_reservation_prefix', 'payment_requests_email_prefix')`,
    );
    assert.equal(left.rows[0]?.n, 0, 'payment_requests keeps none of the search indexes');
  });

  // Last: it empties the requests.
  test('a TRUNCATE of the requests empties the search table too', async () => {
    const left = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_request_search')).rows[0]?.n;
    await insertRequests(t.db, 'WIPE', 2);
    await t.db.query('TRUNCATE payment_requests CASCADE');
    assert.equal(await left(), 0);
    // Both named in one TRUNCATE (as a reset of every table does): the trigger must not fail it.
    await insertRequests(t.db, 'WIPE', 2);
    await t.db.query('TRUNCATE payment_requests, payment_request_search CASCADE');
    assert.equal(await left(), 0);
  });
});
