import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import type { AppContext } from '../../src/context.ts';
import { buildContext } from '../../src/context.ts';
import { type Database, openDatabase } from '../../src/db/index.ts';
import { nextRunAfter, runDueJobs, type ScheduledJob, startScheduler } from '../../src/jobs/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe(`the scheduler, two instances on one database (${ENGINE})`, () => {
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
  /** A stand-in job that counts its calls and takes a moment, so concurrent passes overlap. */
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

  test('the same due slot, passed by both instances at once, runs exactly once', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    const now = new Date('2026-12-10T09:00:30Z');
    for (let round = 0; round < 5; round++) {
      const slot = new Date(now.getTime() + round * HOUR - 30_000);
      await due('expire_payment_requests', slot);
      const at = new Date(now.getTime() + round * HOUR);
      const [ra, rb] = await Promise.all([runDueJobs(a, at, { jobs }), runDueJobs(b, at, { jobs })]);
      assert.equal(ra.length + rb.length, 1, `round ${round}: ${ra.length} + ${rb.length} runs`);
    }
    assert.equal(counter.calls, 5);
    const runs = await runsOf('expire_payment_requests');
    assert.equal(runs.length, 5);
    assert.ok(runs.every((r) => r.outcome === 'ok' && r.finished_at !== null));
    assert.deepEqual(runs[0]?.counts, { done: 1 });
  });

  test('a slot missed for 3 days runs once on return, and the next run is in the future', async () => {
    const counter = countingJob();
    const jobs = { create_deferred_payments: counter.job };
    const now = new Date('2026-12-13T10:00:00Z');
    // 07:00 Paris on the 10th: the 10th, 11th, 12th and 13th slots were all missed.
    await due('create_deferred_payments', new Date('2026-12-10T06:00:00Z'));
    const first = await Promise.all([runDueJobs(a, now, { jobs }), runDueJobs(b, now, { jobs })]);
    assert.equal(first.flat().length, 1);
    assert.equal(counter.calls, 1);
    const s = await schedule('create_deferred_payments');
    assert.equal(s.next_run_at?.toISOString(), '2026-12-14T06:00:00.000Z');
    assert.equal(s.last_outcome, 'ok');
    assert.ok(s.last_run_at);
    // Later the same day: nothing due.
    assert.deepEqual(await runDueJobs(a, new Date(now.getTime() + HOUR), { jobs }), []);
    assert.equal((await runsOf('create_deferred_payments')).length, 1);
  });

  test('a disabled schedule never runs', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    await due('expire_payment_requests', new Date('2026-12-10T08:00:00Z'));
    await testDb.db.query("UPDATE job_schedules SET enabled = false WHERE job = 'expire_payment_requests'");
    for (let d = 0; d < 3; d++) await runDueJobs(a, new Date(Date.parse('2026-12-10T09:00:00Z') + d * DAY), { jobs });
    assert.equal(counter.calls, 0);
    assert.equal((await runsOf('expire_payment_requests')).length, 0);
  });

  test('a schedule never planned gets its next run on the first pass, without running', async () => {
    const counter = countingJob();
    await testDb.db.query("UPDATE job_schedules SET enabled = true WHERE job = 'expire_payment_requests'");
    const now = new Date('2026-12-10T09:10:00Z');
    assert.deepEqual(await runDueJobs(a, now, { jobs: { expire_payment_requests: counter.job } }), []);
    assert.equal((await schedule('expire_payment_requests')).next_run_at?.toISOString(), '2026-12-10T10:00:00.000Z');
  });

  test('a failing job is recorded as failed with its error, and the schedule goes on', async () => {
    let fail = true;
    const jobs: Record<string, ScheduledJob> = {
      expire_payment_requests: async () => {
        if (fail) throw new Error('database on fire');
        return { ok: 1 };
      },
    };
    await due('expire_payment_requests', new Date('2026-12-10T09:00:00Z'));
    const [r] = await runDueJobs(a, new Date('2026-12-10T09:00:05Z'), { jobs });
    assert.deepEqual({ outcome: r?.outcome, error: r?.error }, { outcome: 'failed', error: 'database on fire' });
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual(
      { outcome: run?.outcome, error: run?.error, finished: run?.finished_at !== null },
      { outcome: 'failed', error: 'database on fire', finished: true },
    );
    let s = await schedule('expire_payment_requests');
    assert.equal(s.last_outcome, 'failed');
    assert.equal(s.next_run_at?.toISOString(), '2026-12-10T10:00:00.000Z');
    fail = false;
    const [next] = await runDueJobs(a, new Date('2026-12-10T10:00:01Z'), { jobs });
    assert.equal(next?.outcome, 'ok');
    s = await schedule('expire_payment_requests');
    assert.equal(s.last_outcome, 'ok');
  });

  test('the real jobs run with "today" in the schedule\'s time zone and "now" for expiry', async () => {
    // 23:30 UTC on the 9th is already the 10th in Paris.
    const now = new Date('2026-12-09T23:30:00Z');
    await due('create_deferred_payments', new Date('2026-12-09T06:00:00Z'));
    await due('expire_payment_requests', new Date('2026-12-09T23:00:00Z'));
    const reports = await runDueJobs(a, now);
    const byJob = Object.fromEntries(reports.map((r) => [r.job, r]));
    assert.equal(byJob.create_deferred_payments?.outcome, 'ok');
    assert.equal(byJob.create_deferred_payments?.counts?.date, '2026-12-10');
    assert.equal(byJob.expire_payment_requests?.outcome, 'ok');
    assert.equal(byJob.expire_payment_requests?.counts?.now, now.toISOString());
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
    const counter = countingJob();
    await due('create_deferred_payments', new Date('2027-03-27T06:00:00Z'));
    await runDueJobs(a, new Date('2027-03-27T06:00:10Z'), { jobs: { create_deferred_payments: counter.job } });
    assert.equal((await schedule('create_deferred_payments')).next_run_at?.toISOString(), '2027-03-28T05:00:00.000Z');
  });

  /** Resolves once `sql` (one boolean column, `ok`) answers true; the clock that matters is the database's. */
  async function until(sql: string, params: unknown[]): Promise<void> {
    for (;;) {
      const r = await testDb.db.query<{ ok: boolean }>(sql, params);
      if (r.rows[0]?.ok) return;
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  /** The slot claimed by an instance that then died: its row, leased for `leaseSeconds`, never renewed. */
  async function claimedByADeadInstance(job: string, slot: Date, leaseSeconds: number) {
    await due(job, slot);
    const run = await a.repos.schedules.claim(job, slot, new Date(slot.getTime() + HOUR), leaseSeconds);
    assert.ok(run);
    return run;
  }
  /** Time passing for a dead instance's run: its lease is over. */
  const lapse = (runId: string) =>
    testDb.db.query("UPDATE job_runs SET lease_until = now() - interval '1 second' WHERE id = $1::bigint", [runId]);

  test('a run whose process died is run again once its lease passes, by one instance, as attempt 2', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    const slot = new Date('2026-12-10T09:00:00Z');
    const dead = await claimedByADeadInstance('expire_payment_requests', slot, 1);
    const later = new Date('2026-12-10T09:00:30Z');
    // Its lease has not passed yet: it may be alive, nobody takes its run.
    const early = await Promise.all([runDueJobs(a, later, { jobs }), runDueJobs(b, later, { jobs })]);
    assert.equal(early.flat().length, 0);
    await until('SELECT lease_until < now() AS ok FROM job_runs WHERE id = $1::bigint', [dead.id]);
    const [ra, rb] = await Promise.all([runDueJobs(a, later, { jobs }), runDueJobs(b, later, { jobs })]);
    const ran = [...ra, ...rb];
    assert.equal(ran.length, 1, `${ra.length} + ${rb.length} runs`);
    assert.deepEqual(
      { slot: ran[0]?.slot.toISOString(), attempt: ran[0]?.attempt, outcome: ran[0]?.outcome },
      { slot: slot.toISOString(), attempt: 2, outcome: 'ok' },
    );
    assert.equal(counter.calls, 1);
    const runs = await runsOf('expire_payment_requests');
    assert.deepEqual(
      runs.map((r) => ({ id: r.id, outcome: r.outcome, attempt: r.attempt, done: r.finished_at !== null })),
      [{ id: dead.id, outcome: 'ok', attempt: 2, done: true }],
    );
    assert.equal((await schedule('expire_payment_requests')).last_outcome, 'ok');
    // Nothing left to take over.
    assert.deepEqual(await runDueJobs(b, new Date('2026-12-10T09:01:00Z'), { jobs }), []);
  });

  test('a slow run that is alive renews its lease: no other instance takes it over', async () => {
    let started: () => void = () => {};
    const hasStarted = new Promise<void>((r) => {
      started = r;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const counter = countingJob();
    const slow: ScheduledJob = async () => {
      started();
      await gate;
      return { slow: 1 };
    };
    await due('expire_payment_requests', new Date(Date.now() - 1000));
    const log = { info: () => {}, error: () => {} };
    const s = startScheduler(a, log, { jobs: { expire_payment_requests: slow }, leaseSeconds: 2 });
    try {
      await hasStarted;
      const [run] = await runsOf('expire_payment_requests');
      assert.ok(run?.lease_until);
      // The lease it was claimed with is over: only its renewals keep the run its own.
      await until('SELECT now() > $1::timestamptz AS ok', [run.lease_until]);
      assert.deepEqual(await runDueJobs(b, new Date(), { jobs: { expire_payment_requests: counter.job } }), []);
      assert.equal(counter.calls, 0);
    } finally {
      release();
      await s.stop();
    }
    const runs = await runsOf('expire_payment_requests');
    assert.deepEqual(
      runs.map((r) => ({ outcome: r.outcome, attempt: r.attempt, counts: r.counts })),
      [{ outcome: 'ok', attempt: 1, counts: { slow: 1 } }],
    );
  });

  test('a run outliving its lease (a stalled process) is run again elsewhere; its own outcome is not recorded', async () => {
    const slot = new Date('2026-12-10T09:00:00Z');
    const stalled = await claimedByADeadInstance('expire_payment_requests', slot, 60);
    await lapse(stalled.id);
    const [retry] = await runDueJobs(b, new Date('2026-12-10T09:00:30Z'), {
      jobs: { expire_payment_requests: async () => ({ by: 'b' }) },
    });
    assert.equal(retry?.attempt, 2);
    // The stalled process wakes up and ends: the run is no longer its attempt's.
    assert.equal(await a.repos.schedules.finish(stalled, 'expire_payment_requests', 'ok', { by: 'a' }, null), false);
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual({ outcome: run?.outcome, counts: run?.counts }, { outcome: 'ok', counts: { by: 'b' } });
  });

  test('a slot whose process died 3 times is closed as failed and not run again; a newer slot still runs', async () => {
    const counter = countingJob();
    const jobs = { expire_payment_requests: counter.job };
    const slot = new Date('2026-12-10T09:00:00Z');
    const dead = await claimedByADeadInstance('expire_payment_requests', slot, 60);
    for (const attempt of [2, 3]) {
      await lapse(dead.id);
      // Taken over, and that process dies too before it ends.
      const run = await a.repos.schedules.takeOverLapsed('expire_payment_requests', {
        retry: true,
        maxAttempts: 3,
        leaseSeconds: 60,
      });
      assert.equal(run?.attempt, attempt);
    }
    await lapse(dead.id);
    assert.deepEqual(await runDueJobs(b, new Date('2026-12-10T09:30:00Z'), { jobs }), []);
    assert.equal(counter.calls, 0);
    const [run] = await runsOf('expire_payment_requests');
    assert.equal(run?.outcome, 'failed');
    assert.match(
      run?.error ?? '',
      /^abandoned: the process running attempt 3 stopped .*not run again after 3 attempts/,
    );
    assert.equal((await schedule('expire_payment_requests')).last_outcome, 'failed');
    const [next] = await runDueJobs(b, new Date('2026-12-10T10:00:05Z'), { jobs });
    assert.deepEqual({ attempt: next?.attempt, outcome: next?.outcome }, { attempt: 1, outcome: 'ok' });
  });

  test('a dead run of a schedule that is off is closed as failed, not run again', async () => {
    const counter = countingJob();
    const dead = await claimedByADeadInstance('expire_payment_requests', new Date('2026-12-10T09:00:00Z'), 60);
    await testDb.db.query("UPDATE job_schedules SET enabled = false WHERE job = 'expire_payment_requests'");
    await lapse(dead.id);
    assert.deepEqual(
      await runDueJobs(a, new Date('2026-12-10T09:30:00Z'), { jobs: { expire_payment_requests: counter.job } }),
      [],
    );
    const [run] = await runsOf('expire_payment_requests');
    assert.deepEqual({ outcome: run?.outcome, calls: counter.calls }, { outcome: 'failed', calls: 0 });
    assert.match(run?.error ?? '', /\(the schedule is off\)$/);
  });

  test('startScheduler passes on its own and stop() waits for the job in progress', async () => {
    // The job tells when it has started and ends only when the test lets it: no guessing with sleeps.
    let finished = false;
    let started: () => void = () => {};
    const hasStarted = new Promise<void>((r) => {
      started = r;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const jobs: Record<string, ScheduledJob> = {
      expire_payment_requests: async () => {
        started();
        await gate;
        finished = true;
        return {};
      },
    };
    await due('expire_payment_requests', new Date(Date.now() - 1000));
    const logged: string[] = [];
    const log = { info: (_o: object, m: string) => logged.push(m), error: (_o: object, m: string) => logged.push(m) };
    const s = startScheduler(a, log, { jobs, intervalMs: 10 });
    await hasStarted;
    // stop() is asked while the job runs; what it resolves with is whether the job had ended by then.
    const stopped = s.stop().then(() => finished);
    await new Promise((r) => setImmediate(r));
    release();
    assert.equal(await stopped, true, 'stop() resolved before the job in progress ended');
    assert.deepEqual(logged, ['scheduled job done']);
  });
});
