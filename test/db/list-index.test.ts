import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, repositories } from '../../src/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const TENANTS = 20;
const ROWS = 10_000;
const tenantId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const BIG = tenantId(1);

/**
 * The database with every statement explained instead of run: the rows are the plan's lines,
 * each as the tenant's row would be (the search's reads keep only rows of the filter's hotel).
 */
function explaining(db: Database): Database {
  return {
    ...db,
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      // Planned with the values, as a custom plan: what the planner picks for this tenant.
      const r = await db.query<Record<string, string>>(`EXPLAIN ${sql}`, params, { planWithValues: true });
      const lines = r.rows.map((row) => Object.assign(new String(Object.values(row).join(' ')), { tenant_id: BIG }));
      return { rows: lines as unknown as T[], rowCount: r.rowCount };
    },
  };
}

describe('which index answers a list', () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
    for (let n = 1; n <= TENANTS; n++) {
      await t.db.query("INSERT INTO tenants (id, name, timezone) VALUES ($1, $2, 'Europe/Paris')", [
        tenantId(n),
        `Hotel ${n}`,
      ]);
    }
    // Requests written in date order, as a lived table holds them; one tenant holds a tenth.
    await t.db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at, created_at)
       SELECT gen_random_uuid(),
              ($2::uuid[])[CASE WHEN g % 10 = 0 THEN 1 ELSE 2 + g % (cardinality($2::uuid[]) - 1) END],
              'IMP-2026-' || g, 'IMPRINT', 'NOT_INITIATED', 15000, 'EUR', 'guest' || g || '@example.com',
              'Jeanne', 'Martin', 'fr', 'RES-' || g, '{}'::jsonb, now() + interval '30 days',
              now() - make_interval(secs => $1::int - g)
         FROM generate_series(1, $1::int) g`,
      [ROWS, Array.from({ length: TENANTS }, (_, i) => tenantId(i + 1))],
    );
    await t.db.query('ANALYZE payment_requests, payment_request_search, tenants');
  });
  after(() => t.drop());

  test("one tenant's page, even a tenant holding a tenth of the table: its own index, not every tenant's", async () => {
    const repos = repositories(explaining(t.db));
    const plan = (await repos.paymentRequests.list(BIG, { limit: 101 })).join('\n');
    assert.match(plan, /payment_requests_tenant_created/, plan);
    const control = (await repos.controlRequests.list({ tenantId: BIG, limit: 51 })).rows.join('\n');
    assert.match(control, /payment_requests_tenant_created/, control);
    assert.doesNotMatch(control, /payment_request_search/, control);
  });

  test('the list across every tenant walks the index of all requests by date, each then read by id', async () => {
    // A table this small is cheaper to read whole: forbid that, to see which index it can use.
    const plan = await t.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const repos = repositories(explaining({ ...t.db, query: tx.query }));
      return (await repos.controlRequests.list({ limit: 51 })).rows.join('\n');
    });
    assert.match(plan, /Index (Only )?Scan Backward using payment_request_search_created/, plan);
    assert.match(plan, /Index Scan using payment_requests_pkey on payment_requests p/, plan);
    assert.doesNotMatch(plan, /Sort/, plan);
  });

  test("a word most of a tenant's requests hold: its search rows walked in page order, stopping at the page", async () => {
    const repos = repositories(explaining(t.db));
    const plan = (await repos.controlRequests.list({ tenantId: BIG, text: 'martin', limit: 51 })).rows.join('\n');
    // Either of the search table's orders (the hotel's key, or every hotel's by date).
    assert.match(plan, /Index Scan Backward using payment_request_search_(pkey|created)/, plan);
    assert.doesNotMatch(plan, /Sort/, plan);
  });

  test('a text few requests hold: found in the search table, each request then read by its id', async () => {
    const repos = repositories(explaining(t.db));
    const plan = (await repos.controlRequests.list({ tenantId: BIG, text: 'guest4321@', limit: 51 })).rows.join('\n');
    assert.match(plan, /payment_request_search_(email|reference|reservation)/, plan);
    // No digit and no '@': matched anywhere at once. One guest bears the name.
    await t.db.query(
      `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency, guest_email,
         guest_first_name, guest_last_name, language, reservation_ref, reservation_data, link_expires_at)
       VALUES (gen_random_uuid(), $1, 'IMP-2026-RARE', 'IMPRINT', 'NOT_INITIATED', 15000, 'EUR', 'rare@example.com',
               'Anna', 'Zylberstein', 'fr', 'RES-RARE', '{}'::jsonb, now() + interval '30 days')`,
      [BIG],
    );
    const words = (await repos.controlRequests.list({ tenantId: BIG, text: 'zylbers', limit: 51 })).rows.join('\n');
    assert.match(words, /on payment_request_search s/, words);
    assert.match(words, /Index Scan using payment_requests_pkey on payment_requests p/, words);
    assert.doesNotMatch(words, /payment_requests_tenant/, words);
  });
});
