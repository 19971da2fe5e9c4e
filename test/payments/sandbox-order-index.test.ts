import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database, Queryable } from '../../src/db/index.ts';
import { sandboxProvider } from '../../src/providers/sandbox/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

/** Other orders' holds in the sandbox, each with the operation that made it. */
const OTHERS = 20_000;

/**
 * The database with the order view's statement run first under EXPLAIN ANALYZE (its plan in
 * `plans`), then for real.
 */
function explainingOrderView(db: Database, plans: string[]): Database {
  const query: Queryable['query'] = async (sql, params, options) => {
    if (/FROM sandbox_transactions t\s+LEFT JOIN sandbox_operations/.test(sql)) {
      const r = await db.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, params, {
        planWithValues: true,
      });
      plans.push(r.rows.map((row) => Object.values(row).join(' ')).join('\n'));
    }
    return db.query(sql, params, options);
  };
  return { ...db, query };
}

// The reconcile check asks the provider's view of every order it checks: on the sandbox, the
// view read the whole operations table each time (a join by the transaction alone).
describe(`the sandbox's view of one order reads that order's operations only (${ENGINE})`, () => {
  let t: TestDatabase;
  const order = randomUUID();
  before(async () => {
    t = await createTestDatabase();
    await t.db.query(
      `WITH g AS (SELECT g, gen_random_uuid() AS order_id FROM generate_series(1, $1::int) g),
            tx AS (
              INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token)
              SELECT 'txn_other_' || g, order_id, 'hold', 'authorised', 10000, 'EUR', 'tok' FROM g
            )
       INSERT INTO sandbox_operations (key, order_id, operation, transaction_id, amount)
       SELECT 'key_other_' || g, order_id, 'hold', 'txn_other_' || g, 10000 FROM g`,
      [OTHERS],
    );
    // The order viewed: a hold, then a capture of it, each under its own key.
    await t.db.query(
      `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, captured_amount, currency, token)
       VALUES ('txn_viewed', $1, 'hold', 'captured', 10000, 10000, 'EUR', 'tok')`,
      [order],
    );
    await t.db.query(
      `INSERT INTO sandbox_operations (key, order_id, operation, transaction_id, amount, created_at)
       VALUES ('key_hold', $1, 'hold', 'txn_viewed', 10000, now() - interval '1 hour'),
              ('key_capture', $1, 'capture', 'txn_viewed', 10000, now())`,
      [order],
    );
    await t.db.query('ANALYZE sandbox_transactions');
    await t.db.query('ANALYZE sandbox_operations');
  });
  after(() => t.drop());

  test('the keys of the order, found through its index, no other operation read', async () => {
    const plans: string[] = [];
    const provider = sandboxProvider({
      db: explainingOrderView(t.db, plans),
      secretKey: 'k'.repeat(64),
      publicBaseUrl: 'http://127.0.0.1',
    });
    assert.ok(provider.getOrder, 'the sandbox shows its orders');
    const view = await provider.getOrder(order);
    assert.deepEqual(
      view.transactions.map((x) => ({ id: x.id, keys: x.keys })),
      [{ id: 'txn_viewed', keys: ['key_hold', 'key_capture'] }],
    );

    const plan = plans[0] as string;
    assert.ok(plan, 'the order view was explained');
    assert.doesNotMatch(plan, /Seq Scan on sandbox_operations/, plan);
    assert.match(plan, /sandbox_operations_order/, plan);
    const read = [...plan.matchAll(/on sandbox_operations o \(actual rows=(\d+)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    assert.ok(read <= 2, `${read} operations read:\n${plan}`);
  });
});
