import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/domain/index.ts';
import {
  createDeferredPayments,
  type DeferredPaymentsOptions,
  deferredHoldsRepository,
} from '../../src/holds/index.ts';
import { runDueJobs, SCHEDULED_JOBS, scheduledJobKind } from '../../src/jobs/index.ts';
import { jobStore, runClaimed, runDueJobs as runQueueRound } from '../../src/queue/index.ts';
import { registerSandboxCard } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CARD_OK = '4242424242424242';
const CARD_REFUSED = '4000000000000002';
const CARD_ERROR = '4000000000000119';

describe(`create_deferred_payments against the sandbox (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  const run = (date = D, options: DeferredPaymentsOptions = {}) =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      date,
      options,
    );

  /** An IMPRINT whose guest registered `card`, as the IPN leaves it: AUTHORISED with a sealed token. */
  async function registered(checkin: string | null, card = CARD_OK, amount = 200) {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount,
      reservation_data: checkin ? { checkin } : {},
    });
    await registerSandboxCard(t, c.uuid, card);
    return c.uuid;
  }
  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();
  const holdsOf = async (id: string) =>
    (
      await t.db.query<{ status: string; amount: number }>(
        "SELECT status, amount FROM sandbox_transactions WHERE order_id = $1 AND kind = 'hold'",
        [id],
      )
    ).rows;
  const clear = () => t.db.query("UPDATE payment_requests SET status = 'CANCELLED' WHERE status = 'AUTHORISED'");

  test('holds exactly the check-ins from D to D+2; earlier and later ones wait', async () => {
    await clear();
    const due = [await registered(D), await registered(addDays(D, 1)), await registered(addDays(D, 2))];
    const early = await registered(addDays(D, 3));
    const past = await registered(addDays(D, -1));
    const noCheckin = await registered(null);
    const r = await run();
    assert.deepEqual(
      { considered: r.considered, held: r.held, refused: r.refused, failed: r.failed },
      {
        considered: 3,
        held: 3,
        refused: 0,
        failed: 0,
      },
    );
    for (const id of due) {
      const d = await detail(id);
      assert.equal(d.status, 'AUTHORISED_TO_VALIDATE');
      assert.deepEqual(await holdsOf(id), [{ status: 'authorised', amount: 20000 }]);
      // The tenant's 6 days, shortened to Visa's 4 days 18 hours: the test card is a Visa.
      const days = (Date.parse(d.hold_expires_at) - Date.now()) / 86_400_000;
      assert.ok(days > 4.7 && days <= 4.75, `hold ends in Visa's 4 days 18 hours (got ${days})`);
    }
    for (const id of [early, past, noCheckin]) assert.equal((await detail(id)).status, 'AUTHORISED');
  });

  test('a day the job did not run is caught up the next day; a check-in that has passed is not held', async () => {
    await clear();
    // Nothing ran on D: the check-ins of D+2 were due that day, those of D+1 the day before.
    const passed = await registered(D);
    const missed = [await registered(addDays(D, 1)), await registered(addDays(D, 2))];
    const dueToday = await registered(addDays(D, 3));
    const r = await run(addDays(D, 1));
    assert.deepEqual(r.window, { from: addDays(D, 1), to: addDays(D, 3) });
    assert.deepEqual({ considered: r.considered, held: r.held }, { considered: 3, held: 3 });
    for (const id of [...missed, dueToday]) assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
    assert.equal((await detail(passed)).status, 'AUTHORISED', 'the guest was due yesterday: no hold now');
    assert.deepEqual(await holdsOf(passed), []);
  });

  test('the hold is real: the hotel captures part of it through the API', async () => {
    await clear();
    const id = await registered(D, CARD_OK, 300);
    await run();
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${id}/capture/`, payload: { amount: 100 } });
    assert.equal(r.statusCode, 200, r.body);
    const d = await detail(id);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 100);
  });

  test('a refused card: a failed guarantee, ERROR with the reason in the history, the event guarantee_failed', async () => {
    await clear();
    const id = await registered(D, CARD_REFUSED);
    const r = await run();
    assert.equal(r.refused, 1);
    const d = await detail(id);
    assert.equal(d.status, 'ERROR');
    assert.equal(d.order_cycle, 'OPEN', 'not terminal: the guest may give another card');
    assert.equal(d.guarantee_failures, 1);
    assert.ok(d.guarantee_failed_at, 'the detail says when');
    const last = (await t.repos.paymentRequests.history(id)).at(-1);
    assert.equal(last?.source, 'job');
    assert.equal(last?.to_status, 'ERROR');
    const events = await t.db.query<{ type: string }>(
      'SELECT type FROM events WHERE payment_request_id = $1 ORDER BY id DESC LIMIT 1',
      [id],
    );
    assert.equal(events.rows[0]?.type, 'payment_request.guarantee_failed');
    assert.equal((await run()).considered, 0, 'a second run finds nothing: the request waits for another card');
  });

  test('a technical failure leaves it AUTHORISED and the next run tries again', async () => {
    await clear();
    const id = await registered(D, CARD_ERROR);
    const first = await run();
    assert.equal(first.failed, 1);
    assert.equal((await detail(id)).status, 'AUTHORISED');
    const second = await run();
    assert.equal(second.considered, 1, 'retried');
    const row = await t.db.query<{ hold_attempts: number }>(
      'SELECT hold_attempts FROM payment_requests WHERE id = $1',
      [id],
    );
    assert.equal(row.rows[0]?.hold_attempts, 2);
  });

  test('a provider down for one run: caught up by the next, as late as the check-in day itself', async () => {
    await clear();
    const id = await registered(addDays(D, 2));
    provider.failWith('unavailable');
    try {
      assert.equal((await run(D)).failed, 1);
    } finally {
      provider.failWith(undefined);
    }
    assert.equal((await run(addDays(D, 2))).held, 1, 'the job two days later still finds it');
    assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
  });

  test('a second run does nothing', async () => {
    await clear();
    await registered(D);
    await registered(addDays(D, 1));
    assert.equal((await run()).held, 2);
    const again = await run();
    assert.deepEqual({ considered: again.considered, held: again.held }, { considered: 0, held: 0 });
  });

  test('small batches and two concurrent runs: every due imprint held once, never twice', async () => {
    await clear();
    const ids = await Promise.all(Array.from({ length: 12 }, () => registered(addDays(D, 1))));
    const [a, b] = await Promise.all([
      run(D, { batchSize: 3, concurrency: 2 }),
      run(D, { batchSize: 5, concurrency: 3 }),
    ]);
    assert.equal(a.held + b.held, 12);
    for (const id of ids) {
      assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
      assert.equal((await holdsOf(id)).length, 1, 'the provider was asked once');
    }
  });

  test('a lane that fails stops the other: the run fails once nothing of it is still claiming', async () => {
    await clear();
    const ids = await Promise.all(Array.from({ length: 10 }, () => registered(addDays(D, 1))));
    const holds = deferredHoldsRepository(t.db);
    let claims = 0;
    const failing = {
      ...holds,
      // The first group's claim meets a database that has gone; the other lane's still works.
      async claim(...args: Parameters<typeof holds.claim>) {
        if (++claims === 1) throw new Error('database gone');
        return holds.claim(...args);
      },
    };
    const sent = provider.count('hold');
    await assert.rejects(
      createDeferredPayments({ holds: failing, runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens }, D, {
        groupSize: 1,
        concurrency: 2,
      }),
      /database gone/,
    );
    // Settled when the run reported: the other lane finished the group it had, took no more.
    const heldByFailedRun = provider.count('hold') - sent;
    assert.ok(heldByFailedRun <= 1, `the other lane went on after the failure: ${heldByFailedRun} holds`);
    const claimed = await t.db.query(
      'SELECT id FROM payment_requests WHERE id = ANY($1::uuid[]) AND pending_action IS NOT NULL',
      [ids],
    );
    assert.equal(claimed.rowCount, 0, 'no claim left behind');
    assert.equal((await run()).held, ids.length - heldByFailedRun, 'the next run holds the rest');
  });

  test('a slot run again while its first run still works (it outlived its lease): every imprint held once', async () => {
    await clear();
    const ids = await Promise.all(Array.from({ length: 40 }, () => registered(addDays(D, 1))));
    const schedules = t.repos.schedules;
    const job = 'create_deferred_payments';
    // 08:00 UTC is D in Paris, the schedule's zone.
    const now = new Date(`${D}T08:00:00Z`);
    await t.db.query('UPDATE job_schedules SET enabled = (job = $1), next_run_at = $2', [job, now]);
    // Both runs read the same due rows before either claims one: only the row claims keep them apart.
    const holds = deferredHoldsRepository(t.db);
    let reading = 0;
    let bothRead: () => void = () => {};
    const together = new Promise<void>((r) => {
      bothRead = r;
    });
    let firstRead: () => void = () => {};
    const oneRead = new Promise<void>((r) => {
      firstRead = r;
    });
    const racing = {
      ...holds,
      async dueBatch(...args: Parameters<typeof holds.dueBatch>) {
        const batch = await holds.dueBatch(...args);
        if (batch.length > 0) {
          reading++;
          if (reading === 1) firstRead();
          if (reading === 2) bothRead();
          await together;
        }
        return batch;
      },
    };
    const ctx = { ...t.app.payreq, holds: { ...t.app.payreq.holds, deferred: racing } };
    const daily = SCHEDULED_JOBS.create_deferred_payments;
    const seen: Record<string, unknown>[] = [];
    const counted = async (...args: Parameters<typeof daily>) => {
      const r = await daily(...args);
      seen.push(r);
      return r;
    };
    const kind = scheduledJobKind(async () => ctx, t.repos, job, { jobs: { [job]: counted } });
    try {
      const [queued] = await runDueJobs(t.app.payreq, now);
      assert.ok(queued);
      const first = await jobStore(t.db).claimById(job, queued.queueJob, { leaseMs: 60_000, owner: 'stalls:1' });
      assert.ok(first);
      // The first run starts; its worker stalls past its lease: for the database it is dead.
      const stalled = runClaimed(t.db, kind, first, now);
      await oneRead;
      await t.db.query("UPDATE jobs SET lease_until = now() - interval '1 second' WHERE id = $1::bigint", [first.id]);
      // It wakes up and goes on while another worker takes its run over: the two work at once.
      const [stalledOutcome, retried] = await Promise.all([stalled, runQueueRound(t.db, kind)]);
      assert.deepEqual(retried, ['ok']);
      assert.equal(stalledOutcome, 'lease_lost', 'the stalled run no longer owns the run');
      const sum = (k: string) => seen.reduce((n, r) => n + Number(r[k]), 0);
      assert.equal(seen.length, 2);
      assert.deepEqual(
        { considered: sum('considered'), held: sum('held'), skipped: sum('skipped') },
        { considered: 80, held: 40, skipped: 40 },
        'each row seen by both runs, held by one, skipped by the other',
      );
      for (const id of ids) {
        assert.equal((await detail(id)).status, 'AUTHORISED_TO_VALIDATE');
        assert.equal((await holdsOf(id)).length, 1, 'the provider was asked once');
      }
      const [row] = await schedules.runs(job, 1);
      assert.deepEqual({ outcome: row?.outcome, attempt: row?.attempt }, { outcome: 'ok', attempt: 2 });
    } finally {
      await t.db.query('DELETE FROM job_runs');
      await t.db.query("DELETE FROM jobs WHERE kind = 'create_deferred_payments'");
      await t.db.query('UPDATE job_schedules SET enabled = true, next_run_at = NULL');
    }
  });

  test('one group with every outcome: each recorded as its own, with its own history', async () => {
    await clear();
    const ok = await registered(D, CARD_OK);
    const no = await registered(D, CARD_REFUSED);
    const ko = await registered(D, CARD_ERROR);
    const r = await run(D, { groupSize: 10, concurrency: 3 });
    assert.deepEqual({ held: r.held, refused: r.refused, failed: r.failed }, { held: 1, refused: 1, failed: 1 });
    const rows = await t.db.query<{ id: string; status: string; pending_action: string | null; hold_attempts: number }>(
      'SELECT id, status, pending_action, hold_attempts FROM payment_requests WHERE id = ANY($1::uuid[])',
      [[ok, no, ko]],
    );
    const by = new Map(rows.rows.map((row) => [row.id, row]));
    assert.equal(by.get(ok)?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(by.get(no)?.status, 'ERROR');
    assert.equal(by.get(ko)?.status, 'AUTHORISED');
    for (const row of rows.rows) {
      assert.equal(row.pending_action, null, 'every claim given back');
      assert.equal(row.hold_attempts, 1);
    }
    const jobMoves = async (id: string) =>
      (await t.repos.paymentRequests.history(id)).filter((h) => h.source === 'job').map((h) => h.to_status);
    assert.deepEqual(await jobMoves(ok), ['AUTHORISED_TO_VALIDATE']);
    assert.deepEqual(await jobMoves(no), ['ERROR']);
    assert.deepEqual(await jobMoves(ko), [], 'a technical failure moves nothing, so it writes no history');
    const txn = await t.db.query<{ provider_transaction_id: string; id: string }>(
      "SELECT p.provider_transaction_id, s.id FROM payment_requests p JOIN sandbox_transactions s ON s.order_id = p.id AND s.kind = 'hold' WHERE p.id = $1",
      [ok],
    );
    assert.equal(txn.rows[0]?.provider_transaction_id, txn.rows[0]?.id, 'the request names its hold');
    assert.deepEqual(await holdsOf(no), [{ status: 'refused', amount: 20000 }], 'a refused hold, nothing held');
    // Only a hold placed has an end: its ledger row's, which is the request's.
    const ends = await t.db.query<{ request: string; state: string; ends: Date | string | null }>(
      "SELECT payment_request_id AS request, state, hold_expires_at AS ends FROM money_ledger WHERE kind = 'hold' AND payment_request_id = ANY($1::uuid[])",
      [[ok, no, ko]],
    );
    const endOf = new Map(ends.rows.map((row) => [row.request, row]));
    const placed = await t.db.query<{ ends: Date | string }>(
      'SELECT hold_expires_at AS ends FROM payment_requests WHERE id = $1',
      [ok],
    );
    assert.equal(endOf.get(ok)?.state, 'succeeded');
    assert.ok(placed.rows[0]?.ends, 'the placed hold has an end');
    assert.equal(
      new Date(endOf.get(ok)?.ends ?? 0).getTime(),
      new Date(placed.rows[0]?.ends ?? 0).getTime(),
      'the request ends when its hold does',
    );
    assert.deepEqual(
      [endOf.get(no)?.state, endOf.get(no)?.ends ?? null],
      ['refused', null],
      'a refused hold has no end',
    );
    assert.deepEqual([endOf.get(ko)?.state, endOf.get(ko)?.ends ?? null], ['failed', null], 'nor a failed one');
  });

  test('a row claimed by someone else after the job read it is skipped, not held', async () => {
    await clear();
    const id = await registered(D);
    const holds = deferredHoldsRepository(t.db);
    const racing = {
      ...holds,
      // A capture or a second run takes the row between the read and the claim.
      async dueBatch(...args: Parameters<typeof holds.dueBatch>) {
        const batch = await holds.dueBatch(...args);
        await t.db.query("UPDATE payment_requests SET pending_action = 'capture' WHERE id = $1", [id]);
        return batch;
      },
    };
    const r = await createDeferredPayments(
      { holds: racing, runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.deepEqual(
      { considered: r.considered, skipped: r.skipped, held: r.held },
      { considered: 1, skipped: 1, held: 0 },
    );
    assert.deepEqual(await holdsOf(id), [], 'the provider was never asked');
    await t.db.query('UPDATE payment_requests SET pending_action = NULL WHERE id = $1', [id]);
  });

  test('deposits, unpaid imprints and imprints without a card are never touched', async () => {
    await clear();
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, reservation_data: { checkin: D } });
    const unpaid = await createRequest(t, { request_type: 'IMPRINT', reservation_data: { checkin: D } });
    const r = await run();
    assert.equal(r.considered, 0);
    assert.equal((await detail(deposit.uuid)).status, 'NOT_INITIATED');
    assert.equal((await detail(unpaid.uuid)).status, 'NOT_INITIATED');
  });
});
