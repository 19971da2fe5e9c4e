import type { Queryable } from './database.ts';

export interface ScheduleRow {
  job: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  last_run_at: Date | null;
  next_run_at: Date | null;
  last_outcome: 'ok' | 'failed' | null;
  updated_at: Date;
}

export interface JobRunRow {
  id: string;
  job: string;
  slot: Date;
  started_at: Date;
  finished_at: Date | null;
  outcome: 'running' | 'ok' | 'failed';
  counts: Record<string, unknown> | null;
  error: string | null;
  /** 1, or more when the slot was run again after the process running it died. */
  attempt: number;
  /** While running: the run belongs to a dead process once this has passed. */
  lease_until: Date | null;
}

/** A run this instance holds: the row and the attempt it is on (a run taken over is on the next one). */
export interface ClaimedRun {
  id: string;
  slot: Date;
  attempt: number;
}

const SCHEDULE_COLUMNS = 'job, cron, timezone, enabled, last_run_at, next_run_at, last_outcome, updated_at';
const RUN_COLUMNS = 'id::text AS id, job, slot, started_at, finished_at, outcome, counts, error, attempt, lease_until';

/**
 * Job schedules and their run history. The claim of a due slot is the unique
 * (job, slot) row in job_runs: whichever instance inserts it runs the slot, the others skip it.
 * A run holds a lease (`lease_until`, renewed while it goes on, on the database's clock so that
 * instances whose clocks differ agree); a `running` row whose lease has passed is a dead
 * process's, and is taken over by one instance.
 */
export function schedulesRepository(db: Queryable) {
  return {
    async list(): Promise<ScheduleRow[]> {
      return (await db.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM job_schedules ORDER BY job`)).rows;
    },

    async get(job: string): Promise<ScheduleRow | undefined> {
      const r = await db.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM job_schedules WHERE job = $1`, [job]);
      return r.rows[0];
    },

    /** Replaces a schedule's settings and its next run; undefined when no such job. */
    async update(
      job: string,
      s: { cron: string; timezone: string; enabled: boolean; nextRunAt: Date | null },
    ): Promise<ScheduleRow | undefined> {
      const r = await db.query<ScheduleRow>(
        `UPDATE job_schedules SET cron = $2, timezone = $3, enabled = $4, next_run_at = $5, updated_at = now()
          WHERE job = $1 RETURNING ${SCHEDULE_COLUMNS}`,
        [job, s.cron, s.timezone, s.enabled, s.nextRunAt],
      );
      return r.rows[0];
    },

    /** A schedule never run by a scheduler gets its first slot; a concurrent pass's wins. */
    async initNextRun(job: string, next: Date): Promise<void> {
      await db.query('UPDATE job_schedules SET next_run_at = $2 WHERE job = $1 AND next_run_at IS NULL', [job, next]);
    },

    /**
     * Claims the schedule's due slot (its next_run_at, if it is enabled and due at `now`) and
     * moves the schedule on to `next`, in one statement: a crash between the two cannot leave a
     * claimed slot as the schedule's next run forever. The slot is read and written by the
     * database itself (never round-tripped through a JS Date, which would drop microseconds).
     * The schedule row is locked for the statement, so a concurrent claim waits, then finds the
     * schedule already moved on; the unique (job, slot) row settles any other race. The run is
     * leased for `leaseSeconds`. Returns the run, or undefined when another instance has it.
     */
    async claim(job: string, now: Date, next: Date, leaseSeconds: number): Promise<ClaimedRun | undefined> {
      const r = await db.query<ClaimedRun>(
        `WITH due AS (
           SELECT job, next_run_at FROM job_schedules
            WHERE job = $1 AND enabled AND next_run_at <= $2::timestamptz
            FOR UPDATE
         ), claimed AS (
           INSERT INTO job_runs (job, slot, lease_until)
           SELECT job, next_run_at, now() + make_interval(secs => $4) FROM due
           ON CONFLICT (job, slot) DO NOTHING RETURNING id, slot, attempt
         ), moved AS (
           UPDATE job_schedules SET next_run_at = $3 WHERE job = $1 AND EXISTS (SELECT 1 FROM claimed)
         )
         SELECT id::text AS id, slot, attempt FROM claimed`,
        [job, now, next, leaseSeconds],
      );
      return r.rows[0];
    },

    /**
     * A run asked by hand ("run now"), outside the schedule, which it leaves as it is. Its slot
     * is the second it was asked in: a double submit within it runs once (unique job, slot).
     */
    async startManual(job: string, leaseSeconds: number): Promise<ClaimedRun | undefined> {
      const r = await db.query<ClaimedRun>(
        `INSERT INTO job_runs (job, slot, lease_until)
         VALUES ($1, date_trunc('second', now()), now() + make_interval(secs => $2))
         ON CONFLICT (job, slot) DO NOTHING RETURNING id::text AS id, slot, attempt`,
        [job, leaseSeconds],
      );
      return r.rows[0];
    },

    /**
     * Extends a run's lease, while it is still `running` on this attempt: once another instance
     * has taken it over (its lease had passed), the attempt has moved on and this changes nothing.
     */
    async renewLease(run: ClaimedRun, leaseSeconds: number): Promise<void> {
      await db.query(
        `UPDATE job_runs SET lease_until = now() + make_interval(secs => $3)
          WHERE id = $1::bigint AND attempt = $2 AND outcome = 'running'`,
        [run.id, run.attempt, leaseSeconds],
      );
    },

    /** The jobs with a `running` run whose lease has passed (nearly always none: one index probe). */
    async jobsWithLapsedRuns(): Promise<string[]> {
      const r = await db.query<{ job: string }>(
        "SELECT DISTINCT job FROM job_runs WHERE outcome = 'running' AND lease_until < now()",
      );
      return r.rows.map((row) => row.job);
    },

    /**
     * Takes over the runs of `job` whose process died (still `running`, lease passed), in one
     * statement. The newest one is run again on its own row, as its next attempt, leased to the
     * caller, when `retry` (the schedule is enabled) and it has had fewer than `maxAttempts`;
     * every other one is closed as failed, its work left to that retry or to the next slot
     * (each job catches up what is still undone). Its rows locked, a concurrent caller waits,
     * then finds them leased again or closed and takes nothing. Returns the run to make, if any.
     */
    async takeOverLapsed(
      job: string,
      opts: { retry: boolean; maxAttempts: number; leaseSeconds: number },
    ): Promise<ClaimedRun | undefined> {
      const r = await db.query<ClaimedRun>(
        `WITH lapsed AS (
           SELECT id, slot, attempt, started_at FROM job_runs
            WHERE job = $1 AND outcome = 'running' AND lease_until < now()
            FOR UPDATE
         ), retried AS (
           UPDATE job_runs r SET attempt = r.attempt + 1, lease_until = now() + make_interval(secs => $4)
            WHERE r.id = (SELECT id FROM lapsed ORDER BY slot DESC, id DESC LIMIT 1)
              AND $2::boolean AND r.attempt < $3
            RETURNING r.id, r.slot, r.attempt
         ), closed AS (
           UPDATE job_runs r SET outcome = 'failed', finished_at = now(),
                  error = 'abandoned: the process running attempt ' || r.attempt || ' stopped before it ended' ||
                          CASE WHEN $2::boolean AND r.attempt >= $3 THEN ' (not run again after ' || r.attempt || ' attempts)'
                               WHEN $2::boolean THEN ' (its work is left to a newer run)'
                               ELSE ' (the schedule is off)' END
             FROM lapsed l
            WHERE r.id = l.id AND r.id NOT IN (SELECT id FROM retried)
            RETURNING l.started_at
         ), told AS (
           UPDATE job_schedules SET last_run_at = (SELECT max(started_at) FROM closed), last_outcome = 'failed'
            WHERE job = $1 AND EXISTS (SELECT 1 FROM closed) AND NOT EXISTS (SELECT 1 FROM retried)
         )
         SELECT id::text AS id, slot, attempt FROM retried`,
        [job, opts.retry, opts.maxAttempts, opts.leaseSeconds],
      );
      return r.rows[0];
    },

    /**
     * Records how a run ended, on the run and on its schedule: only if it is still this attempt's
     * (a run taken over, its lease having passed, is recorded by the attempt that took it over).
     * False when it was not.
     */
    async finish(
      run: ClaimedRun,
      job: string,
      outcome: 'ok' | 'failed',
      counts: Record<string, unknown> | null,
      error: string | null,
    ): Promise<boolean> {
      const r = await db.query<{ finished: boolean }>(
        `WITH run AS (
           UPDATE job_runs SET finished_at = now(), outcome = $3, counts = $4::jsonb, error = $5
            WHERE id = $1::bigint AND attempt = $6 AND outcome = 'running' RETURNING started_at
         ), told AS (
           UPDATE job_schedules s SET last_run_at = run.started_at, last_outcome = $3 FROM run WHERE s.job = $2
         )
         SELECT EXISTS (SELECT 1 FROM run) AS finished`,
        [run.id, job, outcome, counts === null ? null : JSON.stringify(counts), error, run.attempt],
      );
      return r.rows[0]?.finished === true;
    },

    /** Recent runs, newest first, of one job or of all. */
    async runs(job: string | undefined, limit: number): Promise<JobRunRow[]> {
      const r = await db.query<JobRunRow>(
        `SELECT ${RUN_COLUMNS} FROM job_runs WHERE ($1::text IS NULL OR job = $1)
          ORDER BY started_at DESC, id DESC LIMIT $2`,
        [job ?? null, limit],
      );
      return r.rows;
    },
  };
}
export type SchedulesRepository = ReturnType<typeof schedulesRepository>;
