import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, type Queryable, repositories } from '../../src/db/index.ts';
import { allowedFrom, targetOf } from '../../src/domain/index.ts';
import { holdRenewalsRepository } from '../../src/holds/index.ts';
import { expiryRepository } from '../../src/jobs/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const TENANT = '00000000-0000-4000-8000-000000000001';
/** The history: requests long past their hold's and their link's end, paid, captured, released. */
const PAST = 10_000;
/** What can still expire: live holds and open links, a few of them due. */
const LIVE = 40;

/**
 * The database with the expiry's pick (its one SELECT … FOR UPDATE SKIP LOCKED) run under
 * EXPLAIN ANALYZE before it runs for real, with its values: the plan and what it read, kept in
 * `plans`. (The rows it locks are this transaction's own: the real pick takes them as well.)
 */
function explainingPicks(db: Database, plans: string[]): Database {
  const wrap = (q: Queryable): Queryable => ({
    ...q,
    query: async <T>(sql: string, params?: readonly unknown[], options?: Parameters<Queryable['query']>[2]) => {
      if (sql.includes('FOR UPDATE SKIP LOCKED')) {
        const r = await q.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, params, {
          planWithValues: true,
        });
        plans.push(r.rows.map((row) => Object.values(row).join(' ')).join('\n'));
      }
      return q.query<T>(sql, params, options);
    },
  });
  return { ...db, transaction: (fn, options) => db.transaction((tx) => fn(wrap(tx)), options) };
}

/** A test's own value as SQL text: a time, a list of words, a word. */
function literal(v: unknown): string {
  if (v instanceof Date) return `'${v.toISOString()}'::timestamptz`;
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(', ')}]::text[]`;
  if (typeof v === 'string' && /^[\w.:-]*$/.test(v)) return `'${v}'`;
  throw new Error(`no literal for ${String(v)}`);
}

// The hourly expiry read every request whose hold or link had ever ended, to find none of them
// due (docs/indexes.md): its indexes now hold only what can still expire, and its query names
// the statuses so that PostgreSQL can use them.
describe('the expiry reads only what can still expire', () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
    await t.db.query("INSERT INTO tenants (id, name, timezone) VALUES ($1, 'Hotel', 'Europe/Paris')", [TENANT]);
    await t.db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at,
         hold_expires_at, created_at)
       SELECT gen_random_uuid(), $1, 'IMP-2025-' || g, 'IMPRINT',
              (ARRAY['CAPTURED', 'CANCELLED', 'EXPIRED'])[1 + g % 3], 15000, 'EUR', 'guest' || g || '@example.com',
              'Jeanne', 'Martin', 'fr', 'RES-' || g, '{}'::jsonb, now() - interval '200 days' + make_interval(secs => g),
              now() - interval '190 days' + make_interval(secs => g), now() - interval '230 days'
         FROM generate_series(1, $2::int) g`,
      [TENANT, PAST],
    );
    // Live rows: half due (ended an hour ago), half not yet.
    await t.db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at,
         hold_expires_at)
       SELECT gen_random_uuid(), $1, 'IMP-2026-' || g, 'IMPRINT',
              CASE WHEN g % 2 = 0 THEN 'AUTHORISED_TO_VALIDATE' ELSE 'PENDING' END, 15000, 'EUR',
              'live' || g || '@example.com', 'Jeanne', 'Martin', 'fr', 'LIVE-' || g, '{}'::jsonb,
              now() + CASE WHEN g % 4 < 2 THEN interval '-1 hour' ELSE interval '1 day' END,
              CASE WHEN g % 2 = 0 THEN now() + CASE WHEN g % 4 < 2 THEN interval '-1 hour' ELSE interval '1 day' END END
         FROM generate_series(1, $2::int) g`,
      [TENANT, LIVE],
    );
    await t.db.query('ANALYZE payment_requests');
  });
  after(() => t.drop());

  for (const [deadline, trigger, index] of [
    ['hold_expires_at', 'hold_expired', 'payment_requests_hold_expiry'],
    ['link_expires_at', 'link_expired', 'payment_requests_link_expiry'],
  ] as const) {
    test(`${deadline}: the due rows expire, through ${index}`, async () => {
      const plans: string[] = [];
      const moved = await expiryRepository(explainingPicks(t.db, plans)).expireBatch({
        deadline,
        from: allowedFrom(trigger),
        to: targetOf(trigger),
        now: new Date(),
        limit: 500,
        trigger,
      });
      // A quarter of the live rows are this deadline's and due; the history holds none.
      assert.equal(moved, LIVE / 4);
      assert.ok(plans.length > 0, 'the pick was explained');
      const plan = plans[0] as string;
      assert.match(plan, new RegExp(`Index Scan using ${index}`), plan);
      // Read and thrown away: none of the history (it was every past row of the table).
      const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
      assert.ok(removed < LIVE, `${removed} rows read and filtered out:\n${plan}`);
      // Exactly the due live rows of this deadline are EXPIRED now (holds carry an end; links do not).
      const expired = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM payment_requests
          WHERE status = 'EXPIRED' AND reference LIKE 'IMP-2026-%' AND (hold_expires_at IS NOT NULL) = $1`,
        [deadline === 'hold_expires_at'],
      );
      assert.equal(expired.rows[0]?.n, LIVE / 4);
    });
  }

  test('the reminders, planned once for any value (a generic plan), still read the open links only', async () => {
    // After five runs a prepared statement may be planned once for every value: then only what
    // its text says can select a partial index. Forced here, with every other read made dear.
    const plan = await t.db.transaction(async (tx) => {
      await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await tx.query('SET LOCAL enable_seqscan = off');
      const lines: string[] = [];
      const explaining: Queryable = {
        ...tx,
        query: async <T>(sql: string, params: readonly unknown[] = []) => {
          // EXPLAIN of the statement itself would plan it with its values; a prepared one's
          // EXECUTE goes through the plan cache, which is what a driver's named statement does.
          // EXECUTE takes no bound parameters: its values are written as literals.
          await tx.query(`PREPARE reminders_probe AS ${sql}`);
          const args = params.map(literal).join(', ');
          const r = await tx.query<Record<string, string>>(
            `EXPLAIN (COSTS OFF) EXECUTE reminders_probe${args ? `(${args})` : ''}`,
          );
          await tx.query('DEALLOCATE reminders_probe');
          lines.push(...r.rows.map((row) => Object.values(row).join(' ')));
          return { rows: [] as T[], rowCount: 0 };
        },
      };
      await repositories(explaining as Database).dayPlan.queueReminders(new Date());
      return lines.join('\n');
    });
    assert.match(plan, /payment_requests_link_expiry/, plan);
  });

  test("the renewal run's batches read the live holds' index, in its order, and none of the history", async () => {
    const plans: string[] = [];
    const explaining: Queryable = {
      query: async <T>(sql: string, params: readonly unknown[] = []) => {
        const r = await t.db.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, params, {
          planWithValues: true,
        });
        plans.push(r.rows.map((row) => Object.values(row).join(' ')).join('\n'));
        return { rows: [] as T[], rowCount: 0 };
      },
    };
    const now = new Date();
    await holdRenewalsRepository(explaining).dueBatch(now.toISOString().slice(0, 10), null, 100, now);
    const plan = plans[0] ?? '';
    assert.match(plan, /Index Scan using payment_requests_hold_expiry on payment_requests/, plan);
    assert.doesNotMatch(plan, /Sort|Seq Scan on payment_requests/, plan);
    const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    assert.ok(removed < LIVE, `${removed} rows read and filtered out:\n${plan}`);
  });
});
