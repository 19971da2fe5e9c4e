import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import type { AppContext } from '../../src/context.ts';
import { buildContext } from '../../src/context.ts';
import { type Database, openDatabase } from '../../src/db/index.ts';
import {
  dateIn,
  nextRunAfter,
  queueRun,
  runDueJobs,
  runJobNow,
  type ScheduledJob,
  scheduledJobKind,
  startScheduler,
} from '../../src/jobs/index.ts';
import { jobStore, runClaimed } from '../../src/queue/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';
import { runQueuedJobs } from '../helpers/scheduled-runs.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe(`the scheduler queues, the queue runs: two instances on one database (${ENGINE})`, () => {
  let testDb: TestDatabase;
  let second: Database;
  let a: AppContext;
  let b: AppContext;
  before(async () => {
    testDb = await createTestDatabase();
    // PostgreSQL: a second connection pool, as a second instance has. PGlite is one process's
    // database: the second context shares it, and the claim logic is the same SQL.
    second = ENGINE === 'postgres' ? await openDatabase({ engine: 'postgres', url: testDb.url }) : testDb.db;
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: testDb.url });
    a = await buildContext({ config, db: testDb.db });
    b = await buildContext({ config, db: second });
  });
  after(async () => {
    if (second !== testDb.db) await second.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    await testDb.db.query('DELETE FROM job_runs');
    await testDb.db.query("DELETE FROM jobs WHERE kind NOT IN ('mail', 'webhook_delivery', 'bulk_job')");
    await testDb.db.query(
      "UPDATE job_schedules SET enabled = false, next_run_at = NULL, cron = CASE job WHEN 'create_deferred_payments' THEN '0 7 * * *' ELSE '0 * * * *' END, timezone = 'Europe/Paris', last_run_at = NULL, last_outcome = NULL",
    );
  });

  /** Enables one schedule with its next run at `next`. */
  const due = (job: string, next: Date, cron?: string) =>
    testDb.db.query(
      'UPDATE job_schedules SET enabled = true, next_run_at = $2, cron = COALESCE($3, cron) WHERE job = $1',
      [job, next, cron ?? null],
    );
  const schedule = async (job: string) => {
    const s = await a.repos.schedules.get(job);
    assert.ok(s);
    return s;
  };
  const runsOf = (job: string) => a.repos.schedules.runs(job, 100);
  /** A stand-in job that counts its calls and takes a moment, so concurrent workers overlap. */
  function countingJob(): { job: ScheduledJob; calls: number } {
    const c = {
      calls: 0,
      job: (async () => {
        c.calls++;
        await new Promise((r) => setTimeout(r, 20));
        return { done: 1 };
      }) as ScheduledJob,
    };
    return c;
  }
  /** A job that tells when it has started and ends only when the test lets it. */
  function gatedJob(counts: Record<string, unknown> = { gated: 1 }) {
    let started: () => void = () => {};
    const hasStarted = new Promise<void>((r) => {
      started = r;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const job: ScheduledJob = async () => {
      started();
      await gate;
      return counts;
    };
    return { job, hasStarted, release };
  }
  /** Resolves once `sql` (one boolean column, `ok`) answers true; the clock that matters is the database's. */
  async function until(sql: string, params: unknown[]): Promise<void> {
    for (;;) {
      const r = await testDb.db.query<{ ok: boolean }>(sql, params);
      if (r.rows[0]?.ok) return;
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  /** The queue job of a queued run, claimed by a worker that then died (or stalled): leased, never settled. */
  async function claimedByADeadWorker(queueJob: string, leaseMs: number) {
    const job = await jobStore(testDb.db).claimById('expire_payment_requests', queueJob, {
      leaseMs,
      owner: 'dead:1',
    });
    assert.ok(job);
    return job;
  }
  /** Time passing for a dead worker: its lease is over. */
  const lapse = (queueJob: string) =>
    testDb.db.query("UPDATE jobs SET lease_until = now() - interval '1 second' WHERE id = $1::bigint", [queueJob]);

  test('the same due slot, passed by both instances at once, is queued once and run once', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    const now = new Date('2026-12-10T09:00:30Z');
    for (let round = 0; round < 5; round++) {
      const slot = new Date(now.getTime() + round * HOUR - 30_000);
      await due('expire_payment_requests', slot);
      const at = new Date(now.getTime() + round * HOUR);
      const [qa, qb] = await Promise.all([runDueJobs(a, at), runDueJobs(b, at)]);
      assert.equal(qa.length + qb.length, 1, `round ${round}: ${qa.length} + ${qb.length} queued`);
      const [ra, rb] = await Promise.all([runQueuedJobs(a, { jobs }), runQueuedJobs(b, { jobs })]);
      assert.equal(ra.length + rb.length, 1, `round ${round}: run by one worker`);
    }
    assert.equal(counter.calls, 5);
    const runs = await runsOf('expire_payment_requests');
    assert.equal(runs.length, 5);
    assert.ok(runs.every((r) => r.outcome === 'ok' && r.finished_at !== null && r.started_by === 'scheduler'));
    assert.deepEqual(runs[0]?.counts, { done: 1 });
    assert.equal(runs[0]?.run_date, '2026-12-10', 'the day it ran for, in the schedule’s zone');
  });

  test('a slot missed for 3 days is queued once on return, and the next run is in the future', async () => {
    const counter = countingJob();
    const jobs = { create_deferred_payments: counter.job };
    const now = new Date('2026-12-13T10:00:00Z');
    // 07:00 Paris on the 10th: the 10th, 11th, 12th and 13th slots were all missed.
    await due('create_deferred_payments', new Date('2026-12-10T06:00:00Z'));
    const first = await Promise.all([runDueJobs(a, now), runDueJobs(b, now)]);
    assert.equal(first.flat().length, 1);
    await runQueuedJobs(a, { jobs });
    assert.equal(counter.calls, 1);
    const s = await schedule('create_deferred_payments');
    assert.equal(s.next_run_at?.toISOString(), '2026-12-14T06:00:00.000Z');
    assert.equal(s.last_outcome, 'ok');
    assert.ok(s.last_run_at);
    // Later the same day: nothing due.
    assert.deepEqual(await runDueJobs(a, new Date(now.getTime() + HOUR)), []);
    assert.equal((await runsOf('create_deferred_payments')).length, 1);
  });

  test('a disabled schedule never runs', async () => {
    await due('expire_payment_requests', new Date('2026-12-10T08:00:00Z'));
    await testDb.db.query("UPDATE job_schedules SET enabled = false WHERE job = 'expire_payment_requests'");
    for (let d = 0; d < 3; d++) {
      assert.deepEqual(await runDueJobs(a, new Date(Date.parse('2026-12-10T09:00:00Z') + d * DAY)), []);
    }
    assert.equal((await runsOf('expire_payment_requests')).length, 0);
  });

  test('a schedule never planned gets its next run on the first pass, without running', async () => {
    await testDb.db.query("UPDATE job_schedules SET enabled = true WHERE job = 'expire_payment_requests'");
    const now = new Date('2026-12-10T09:10:00Z');
    assert.deepEqual(await runDueJobs(a, now), []);
    assert.equal((await schedule('expire_payment_requests')).next_run_at?.toISOString(), '2026-12-10T10:00:00.000Z');
  });

  test('a failing job is recorded as failed with its error, not retried, and the schedule goes on', async () => {
    let fail = true;
    const jobs: Record<string, ScheduledJob> = {
      expire_payment_requests: async () => {
        if (fail) throw new Error('database on fire');
        return { ok: 1 };
      },
    };
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    await runDueJobs(a, new Date('2026-12-10T09:00:05Z'));
    assert.deepEqual(await runQueuedJobs(a, { jobs }), ['failed']);
    assert.deepEqual(await runQueuedJobs(a, { jobs }), [], 'not tried again');
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual(
      { outcome: run?.outcome, error: run?.error, finished: run?.finished_at !== null },
      { outcome: 'failed', error: 'database on fire', finished: true },
    );
    let s = await schedule('expire_payment_requests');
    assert.equal(s.last_outcome, 'failed');
    assert.equal(s.next_run_at?.toISOString(), '2026-12-10T10:00:00.000Z');
    fail = false;
    await runDueJobs(a, new Date('2026-12-10T10:00:01Z'));
    assert.deepEqual(await runQueuedJobs(a, { jobs }), ['ok']);
    s = await schedule('expire_payment_requests');
    assert.equal(s.last_outcome, 'ok');
  });

  test('the real jobs run with "today" in the schedule\'s time zone and "now" for expiry', async () => {
    // 23:30 UTC on the 9th is already the 10th in Paris.
    const now = new Date('2026-12-09T23:30:00Z');
    await due('create_deferred_payments', new Date('2026-12-09T06:00:00Z'));
    await due('expire_payment_requests', new Date('2026-12-09T23:00:00Z'));
    const queued = await runDueJobs(a, now);
    assert.deepEqual(queued.map((q) => [q.job, q.date]).sort(), [
      ['create_deferred_payments', '2026-12-10'],
      ['expire_payment_requests', '2026-12-10'],
    ]);
    await runQueuedJobs(a, { only: ['create_deferred_payments', 'expire_payment_requests'] });
    const [deferred] = await runsOf('create_deferred_payments');
    assert.equal(deferred?.outcome, 'ok');
    assert.equal(deferred?.counts?.date, '2026-12-10');
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual(run?.counts, { now: now.toISOString(), holds_expired: 0, links_expired: 0 });
  });

  test('next times follow Europe/Paris across the last Sunday of March and of October', async () => {
    const paris = (after: string, cron = '0 7 * * *') =>
      nextRunAfter(cron, 'Europe/Paris', new Date(after)).toISOString();
    // 07:00 CET is 06:00 UTC; from Sunday 28 March 2027, 07:00 CEST is 05:00 UTC.
    assert.equal(paris('2027-03-27T06:00:00Z'), '2027-03-28T05:00:00.000Z');
    assert.equal(paris('2027-03-28T05:00:00Z'), '2027-03-29T05:00:00.000Z');
    // Back to CET on Sunday 31 October 2027.
    assert.equal(paris('2027-10-30T05:00:00Z'), '2027-10-31T06:00:00.000Z');
    // 02:30 does not exist on 28 March: the run is at the first minute that does (03:00 CEST).
    assert.equal(paris('2027-03-27T12:00:00Z', '30 2 * * *'), '2027-03-28T01:00:00.000Z');
    // 02:30 happens twice on 31 October: one run only.
    assert.equal(paris('2027-10-31T00:30:00Z', '30 2 * * *'), '2027-11-01T01:30:00.000Z');
    // Through a pass: a daily slot on the Saturday moves to Sunday 05:00 UTC.
    await due('create_deferred_payments', new Date('2027-03-27T06:00:00Z'));
    await runDueJobs(a, new Date('2027-03-27T06:00:10Z'));
    assert.equal((await schedule('create_deferred_payments')).next_run_at?.toISOString(), '2027-03-28T05:00:00.000Z');
  });

  test('a run whose worker died is run again once its lease passes, by one instance, as attempt 2', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    const [queued] = await runDueJobs(a, new Date('2026-12-10T09:00:05Z'));
    assert.ok(queued);
    await claimedByADeadWorker(queued.queueJob, 1000);
    // Its lease has not passed yet: it may be alive, nobody takes its run.
    const early = await Promise.all([runQueuedJobs(a, { jobs }), runQueuedJobs(b, { jobs })]);
    assert.equal(early.flat().length, 0);
    await until('SELECT lease_until < now() AS ok FROM jobs WHERE id = $1::bigint', [queued.queueJob]);
    const [ra, rb] = await Promise.all([runQueuedJobs(a, { jobs }), runQueuedJobs(b, { jobs })]);
    assert.deepEqual([...ra, ...rb], ['ok'], `${ra.length} + ${rb.length} runs`);
    assert.equal(counter.calls, 1);
    const runs = await runsOf('expire_payment_requests');
    assert.deepEqual(
      runs.map((r) => ({ id: r.id, outcome: r.outcome, attempt: r.attempt, done: r.finished_at !== null })),
      [{ id: queued.run, outcome: 'ok', attempt: 2, done: true }],
    );
    assert.equal((await schedule('expire_payment_requests')).last_outcome, 'ok');
    // Nothing left to take over.
    assert.deepEqual(await runQueuedJobs(b, { jobs }), []);
  });

  test('a slow run that is alive renews its lease: no other instance takes it over', async () => {
    const slow = gatedJob({ slow: 1 });
    const counter = countingJob();
    await due('expire_payment_requests', new Date(Date.now() - 1000));
    await runDueJobs(a, new Date());
    const running = runQueuedJobs(a, { jobs: { expire_payment_requests: slow.job }, leaseSeconds: 2 });
    try {
      await slow.hasStarted;
      const leased = await testDb.db.query<{ until: Date }>(
        "SELECT lease_until AS until FROM jobs WHERE kind = 'expire_payment_requests'",
      );
      const first = leased.rows[0]?.until;
      assert.ok(first);
      // The lease it was claimed with is over: only its renewals keep the run its own.
      await until('SELECT now() > $1::timestamptz AS ok', [first]);
      assert.deepEqual(await runQueuedJobs(b, { jobs: { expire_payment_requests: counter.job } }), []);
      assert.equal(counter.calls, 0);
    } finally {
      slow.release();
    }
    assert.deepEqual(await running, ['ok']);
    const runs = await runsOf('expire_payment_requests');
    assert.deepEqual(
      runs.map((r) => ({ outcome: r.outcome, attempt: r.attempt, counts: r.counts })),
      [{ outcome: 'ok', attempt: 1, counts: { slow: 1 } }],
    );
  });

  test('a run outliving its lease (a stalled worker) is run again elsewhere; its own outcome is not recorded', async () => {
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    const [queued] = await runDueJobs(a, new Date('2026-12-10T09:00:05Z'));
    assert.ok(queued);
    const stalled = await claimedByADeadWorker(queued.queueJob, 60_000);
    await lapse(queued.queueJob);
    assert.deepEqual(await runQueuedJobs(b, { jobs: { expire_payment_requests: async () => ({ by: 'b' }) } }), ['ok']);
    // The stalled worker wakes up and goes on: its lease is no longer its own, it writes nothing.
    const kind = scheduledJobKind(async () => a, a.repos, 'expire_payment_requests', {
      jobs: { expire_payment_requests: async () => ({ by: 'a' }) },
    });
    assert.equal(await runClaimed(testDb.db, kind, stalled, new Date()), 'lease_lost');
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual(
      { outcome: run?.outcome, counts: run?.counts, attempt: run?.attempt },
      { outcome: 'ok', counts: { by: 'b' }, attempt: 2 },
    );
  });

  test('a run whose worker died 3 times is closed as failed and not run again; a newer day still runs', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    const [queued] = await runDueJobs(a, new Date('2026-12-10T09:00:05Z'));
    assert.ok(queued);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await lapse(queued.queueJob);
      assert.equal((await claimedByADeadWorker(queued.queueJob, 60_000)).attempts, attempt);
    }
    await lapse(queued.queueJob);
    assert.deepEqual(await runQueuedJobs(b, { jobs }), ['abandoned']);
    assert.equal(counter.calls, 0);
    const [run] = await runsOf('expire_payment_requests');
    assert.equal(run?.outcome, 'failed');
    assert.match(
      run?.error ?? '',
      /^abandoned: the process running attempt 3 stopped .*not run again after 3 attempts/,
    );
    assert.equal((await schedule('expire_payment_requests')).last_outcome, 'failed');
    await runDueJobs(b, new Date('2026-12-11T10:00:05Z'));
    assert.deepEqual(await runQueuedJobs(b, { jobs }), ['ok']);
    const [next] = await runsOf('expire_payment_requests');
    assert.deepEqual({ attempt: next?.attempt, date: next?.run_date }, { attempt: 1, date: '2026-12-11' });
  });

  test('a dead run of a schedule that is off is closed as failed, not run again', async () => {
    const counter = countingJob();
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    const [queued] = await runDueJobs(a, new Date('2026-12-10T09:00:05Z'));
    assert.ok(queued);
    await claimedByADeadWorker(queued.queueJob, 60_000);
    await testDb.db.query("UPDATE job_schedules SET enabled = false WHERE job = 'expire_payment_requests'");
    await lapse(queued.queueJob);
    assert.deepEqual(await runQueuedJobs(a, { jobs: { expire_payment_requests: counter.job } }), ['abandoned']);
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual({ outcome: run?.outcome, calls: counter.calls }, { outcome: 'failed', calls: 0 });
    assert.match(run?.error ?? '', /\(the schedule is off\)$/);
  });

  test('a run by hand while the scheduled run of the same job and day is under way waits for it and answers its result', async () => {
    const gated = gatedJob({ scheduled: 1 });
    await due('expire_payment_requests', new Date(Date.now() - 1000));
    const [slot] = await runDueJobs(a, new Date());
    assert.ok(slot);
    const scheduled = runQueuedJobs(b, { jobs: { expire_payment_requests: gated.job } });
    await gated.hasStarted;
    let joined: (j: boolean) => void = () => {};
    const queued = new Promise<boolean>((r) => {
      joined = r;
    });
    const byHand = runJobNow(
      { db: testDb.db, repos: a.repos, config: a.config, context: async () => a, onQueued: (q) => joined(q.joined) },
      'expire_payment_requests',
      { startedBy: 'cli' },
    );
    // The run by hand is not queued beside it: it waits for the one under way.
    assert.equal(await queued, true);
    gated.release();
    const [done, answer] = await Promise.all([scheduled, byHand]);
    assert.deepEqual(done, ['ok']);
    assert.equal(answer.joined, true);
    assert.deepEqual(
      { id: answer.run.id, counts: answer.run.counts, by: answer.run.started_by },
      { id: slot.run, counts: { scheduled: 1 }, by: 'scheduler' },
    );
    assert.equal((await runsOf('expire_payment_requests')).length, 1);
  });

  test('a scheduled slot while a run by hand of the same job and day is under way joins it: one run', async () => {
    const gated = gatedJob({ by_hand: 1 });
    const today = new Date();
    const date = dateIn('Europe/Paris', today);
    // A run by hand, queued and taken by a worker that is at it.
    const mine = await queueRun(
      testDb.db,
      'expire_payment_requests',
      date,
      { now: today },
      {
        record: (tx) => a.repos.schedules.requestRun('expire_payment_requests', date, 'cli', tx),
        drop: (tx, run) => a.repos.schedules.dropQueued(run, tx),
      },
    );
    assert.equal(mine?.joined, false);
    const worker = runQueuedJobs(b, { jobs: { expire_payment_requests: gated.job } });
    await gated.hasStarted;
    await due('expire_payment_requests', new Date(today.getTime() - 1000));
    const [slot] = await runDueJobs(a, today);
    assert.deepEqual({ joined: slot?.joined, run: slot?.run }, { joined: true, run: mine?.run }, 'the slot joins it');
    gated.release();
    assert.deepEqual(await worker, ['ok']);
    const runs = await runsOf('expire_payment_requests');
    assert.deepEqual(
      runs.map((r) => [r.started_by, r.outcome]),
      [['cli', 'ok']],
    );
  });

  test('runs asked by hand at the same moment from both instances each get a slot of their own', async () => {
    // Within one tick of the database's clock (PGlite's is coarse): the same slot, unless moved.
    const asked = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).repos.schedules.requestRun('books_check', '2026-11-28', 'cli'),
      ),
    );
    assert.equal(new Set(asked).size, 8, 'eight runs');
    const slots = await testDb.db.query<{ n: number }>(
      "SELECT count(DISTINCT slot)::int AS n FROM job_runs WHERE job = 'books_check'",
    );
    assert.equal(slots.rows[0]?.n, 8);
  });

  test('startScheduler passes on its own and tells of each slot it queued', async () => {
    await due('expire_payment_requests', new Date(Date.now() - 1000));
    const logged: string[] = [];
    const log = { info: (_o: object, m: string) => logged.push(m), error: (_o: object, m: string) => logged.push(m) };
    let queued: () => void = () => {};
    const hasQueued = new Promise<void>((r) => {
      queued = r;
    });
    const s = startScheduler(a, log, { intervalMs: 10, onQueued: () => queued() });
    await hasQueued;
    await s.stop();
    assert.deepEqual(logged, ['scheduled job queued']);
    assert.deepEqual(
      (await runsOf('expire_payment_requests')).map((r) => r.outcome),
      ['queued'],
    );
  });
});
