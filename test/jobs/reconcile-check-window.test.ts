import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import type { ReconcileResult } from '../../src/money-audit/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

// reconcile_claims checks every request touched in its window (the last day), a page at a time
// in request id order. A run stops at its page cap, or dies; the next run carries on where it
// stopped, so that once the window is done, `checked` equals `touched` and every mismatch was
// reported once. The page size and cap are the run's options here; production uses the defaults.
describe(`reconcile checks every request touched in its window (${ENGINE})`, () => {
  let t: TestApp;
  const touched: string[] = [];
  const planted = new Set<string>();
  before(async () => {
    t = await startTestApp();
    for (let i = 0; i < 23; i++) {
      const c = await createRequest(t, { request_type: 'IMPRINT', amount: 50 + i });
      await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
      touched.push(c.uuid);
      // Books that disagree with the provider's (it holds the amount, captured nothing).
      if (i % 3 === 1) {
        await t.db.query('UPDATE payment_requests SET amount_captured = 100 WHERE id = $1', [c.uuid]);
        planted.add(c.uuid);
      }
    }
    // Touched two days ago: outside the window, however wrong its books.
    const old = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
    await arrangeStatus(t.db, old.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query('UPDATE payment_requests SET amount_captured = 100 WHERE id = $1', [old.uuid]);
    await t.db.query("UPDATE money_ledger SET updated_at = now() - interval '2 days' WHERE payment_request_id = $1", [
      old.uuid,
    ]);
  });
  after(() => t.close());

  const small = { checkPageSize: 4, checkPages: 2 };
  const run = (opts: object = small) => t.app.payreq.reconciler.reconcile(opts);
  const reported = (r: ReconcileResult) => r.mismatches.map((m) => m.payment_request_id);
  const lease = (seconds: number) =>
    t.db.query(`UPDATE reconcile_check_window SET leased_until = now() + make_interval(secs => $1::int)`, [seconds]);

  test('runs of 2 pages of 4 go through all 23 touched requests in id order; every planted mismatch reported once', async () => {
    assert.equal(planted.size, 8);
    const first = await run();
    assert.deepEqual([first.touched, first.checked, first.check_complete], [23, 8, false], JSON.stringify(first));
    const inOrder = [...touched].sort();
    assert.deepEqual(
      reported(first),
      inOrder.slice(0, 8).filter((id) => planted.has(id)),
      'the first run checked the first 8 requests by id',
    );

    // A run that died holding the window: while its lease lasts the next run leaves it alone...
    await lease(3600);
    const meanwhile = await run();
    assert.deepEqual([meanwhile.touched, meanwhile.checked, meanwhile.check_complete], [23, 8, false]);
    assert.deepEqual(reported(meanwhile), []);
    // ...then, the lease run out, carries on where it stopped.
    await lease(-1);
    const second = await run();
    assert.deepEqual([second.touched, second.checked, second.check_complete], [23, 16, false]);
    const third = await run();
    assert.deepEqual([third.touched, third.checked, third.check_complete], [23, 23, true]);

    const all = [...reported(first), ...reported(second), ...reported(third)];
    assert.deepEqual([...all].sort(), [...planted].sort(), 'each planted mismatch once, nothing else');
    assert.ok(!all.some((id) => !touched.includes(id)), 'nothing outside the window');
  });

  test('a finished window is closed: the next run opens a new one over the last day', async () => {
    const r = await run({ checkPageSize: 5, checkPages: 10 });
    assert.deepEqual([r.touched, r.checked, r.check_complete], [23, 23, true]);
    assert.deepEqual(reported(r).sort(), [...planted].sort());
  });

  test('the scheduled job reports touched and checked, equal on a complete run', async () => {
    const counts = await SCHEDULED_JOBS.reconcile_claims?.(t.app.payreq, new Date(), 'Europe/Paris');
    assert.equal(counts?.touched, 23);
    assert.equal(counts?.checked, 23);
    assert.equal(counts?.check_complete, true);
    assert.equal((counts?.mismatches as unknown[] | undefined)?.length, planted.size);
  });
});
