import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, type Queryable, repositories } from '../../src/db/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

const TENANT = '00000000-0000-4000-8000-000000000001';
/** Events past retention, written first (the smallest ids), as they are in a live table. */
const OLD = 300;
/** Events still kept, written after them. */
const KEPT = 20_000;

/**
 * The database with the purge's DELETE run first under EXPLAIN ANALYZE in a transaction rolled
 * back (the plan and what it read, in `plans`), then for real.
 */
function explainingPurge(db: Database, plans: string[]): Database {
  const rollBack = new Error('roll back');
  const query: Queryable['query'] = async (sql, params, options) => {
    if (sql.trimStart().startsWith('DELETE FROM events')) {
      const explained = db.transaction(async (tx) => {
        const r = await tx.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, params, {
          planWithValues: true,
        });
        plans.push(r.rows.map((row) => Object.values(row).join(' ')).join('\n'));
        throw rollBack;
      });
      await assert.rejects(explained, (err) => err === rollBack);
    }
    return db.query(sql, params, options);
  };
  return { ...db, query };
}

// The purge read events by an index on created_at that every status change wrote an entry in
// (migration 0157 dropped it): it walks the primary key now, and reads no kept event but one.
describe(`the events purge walks the primary key and stops at the first event kept (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
    await t.db.query("INSERT INTO tenants (id, name, timezone) VALUES ($1, 'Hotel', 'Europe/Paris')", [TENANT]);
    await t.db.query(
      `INSERT INTO events (tenant_id, payment_request_id, type, data, created_at)
       SELECT $1, gen_random_uuid(), 'payment_request.not_initiated', '{}'::jsonb,
              CASE WHEN g <= $2 THEN now() - interval '120 days' + make_interval(secs => g)
                   ELSE now() - interval '30 days' + make_interval(secs => g) END
         FROM generate_series(1, $2::int + $3::int) g ORDER BY g`,
      [TENANT, OLD, KEPT],
    );
    await t.db.query('ANALYZE events');
  });
  after(() => t.drop());

  test('the old events go, read through events_pkey, with no kept event read but the first', async () => {
    const plans: string[] = [];
    const purged = await repositories(explainingPurge(t.db, plans)).events.purge(90);
    assert.equal(purged, OLD);
    const left = await t.db.query<{ n: number; old: number }>(
      "SELECT count(*)::int AS n, count(*) FILTER (WHERE created_at < now() - interval '90 days')::int AS old FROM events",
    );
    assert.deepEqual(left.rows[0], { n: KEPT, old: 0 });

    const plan = plans[0] as string;
    assert.ok(plan, 'the purge was explained');
    assert.doesNotMatch(plan, /Seq Scan on events/, plan);
    assert.match(plan, /Index Scan using events_pkey on events kept/, plan);
    assert.match(plan, /Index Scan using events_pkey on events e\b/, plan);
    // What the two walks of the key read: the old events (each read by both), and the first kept.
    // (The DELETE's own lookup of each chosen id is the third scan of events_pkey, not counted.)
    const read = [...plan.matchAll(/Index Scan using events_pkey on events (?:kept|e) \(actual rows=(\d+)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    const filtered = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    assert.ok(read + filtered <= 2 * OLD + 1, `${read} rows returned and ${filtered} filtered out:\n${plan}`);
  });
});
