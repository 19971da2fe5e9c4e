import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import type { AppContext } from '../../src/context.js';
import { buildContext } from '../../src/context.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { nextRunAfter, runDueJobs, type ScheduledJob, startScheduler } from '../../src/jobs/index.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

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
