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
  /** queued: waiting for a worker; running; then ok or failed. */
  outcome: 'queued' | 'running' | 'ok' | 'failed';
  counts: Record<string, unknown> | null;
  error: string | null;
  /** 1, or more when the run was taken over after the process running it died. */
  attempt: number;
  /** The day it ran for (YYYY-MM-DD; null for runs recorded before it was kept). */
  run_date: string | null;
  /** Who asked for it: 'scheduler', 'cli', or 'user:<username>'; null for older runs. */
  started_by: string | null;
}

/** A slot claimed by this instance's scheduler pass: its run, queued. */
export interface ClaimedSlot {
  run: string;
  slot: Date;
}

const SCHEDULE_COLUMNS = 'job, cron, timezone, enabled, last_run_at, next_run_at, last_outcome, updated_at';
const RUN_COLUMNS = `id::text AS id, job, slot, started_at, finished_at, outcome, counts, error, attempt,
  to_char(run_date, 'YYYY-MM-DD') AS run_date, started_by`;

/**
 * Job schedules and their run history. The claim of a due slot is the unique (job, slot) row
 * in job_runs: whichever instance inserts it queues the slot's run, the others skip it. Every
 * run, scheduled or by hand, is then a job of the one queue (src/jobs/job-runs.ts): the queue
 * leases it and takes it over when its process dies; job_runs records what became of it.
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
     * Claims the schedule's due slot (its next_run_at, if it is enabled and due at `now`) as a
     * queued run for `runDate`, and moves the schedule on to `next`, in one statement: a crash
     * between the two cannot leave a claimed slot as the schedule's next run forever. The slot
     * is read and written by the database itself (never round-tripped through a JS Date, which
     * would drop microseconds). The schedule row is locked for the statement, so a concurrent
     * claim waits, then finds the schedule already moved on; the unique (job, slot) row settles
     * any other race. Returns the run, or undefined when another instance has the slot. `q`:
     * the transaction that also queues it.
     */
    async claimSlot(
      job: string,
      now: Date,
      next: Date,
      runDate: string,
      q: Queryable = db,
    ): Promise<ClaimedSlot | undefined> {
      const r = await q.query<ClaimedSlot>(
        `WITH due AS (
           SELECT job, next_run_at FROM job_schedules
            WHERE job = $1 AND enabled AND next_run_at <= $2::timestamptz
            FOR UPDATE
         ), claimed AS (
           INSERT INTO job_runs (job, slot, outcome, run_date, started_by)
           SELECT job, next_run_at, 'queued', $4::date, 'scheduler' FROM due
           ON CONFLICT (job, slot) DO NOTHING RETURNING id, slot
         ), moved AS (
           UPDATE job_schedules SET next_run_at = $3 WHERE job = $1 AND EXISTS (SELECT 1 FROM claimed)
         )
         SELECT id::text AS run, slot FROM claimed`,
        [job, now, next, runDate],
      );
      return r.rows[0];
    },

    /**
     * A run asked outside the schedule (the command line, the back office's "Run now"), which it
     * leaves as it is: queued for `runDate`, by `startedBy`. Its slot is the moment it was asked.
     * Two asked within one tick of the database's clock (PGlite's is coarser than PostgreSQL's)
     * would claim the same slot: the later one takes the next microsecond free instead.
     */
    async requestRun(job: string, runDate: string, startedBy: string, q: Queryable = db): Promise<string> {
      for (let step = 0; step < 1000; step++) {
        const r = await q.query<{ id: string }>(
          `INSERT INTO job_runs (job, slot, outcome, run_date, started_by)
           VALUES ($1, clock_timestamp() + make_interval(secs => $4::int / 1000000.0), 'queued', $2::date, $3)
           ON CONFLICT (job, slot) DO NOTHING RETURNING id::text AS id`,
          [job, runDate, startedBy, step],
        );
        const run = r.rows[0];
        if (run) return run.id;
      }
      throw new Error(`job ${job}: no free slot within a millisecond of now`);
    },

    /** A run that joined another of the same job and day instead (asked by hand): no record of its own. */
    async dropQueued(runId: string, q: Queryable = db): Promise<void> {
      await q.query("DELETE FROM job_runs WHERE id = $1::bigint AND outcome = 'queued'", [runId]);
    },

    /**
     * The run starts, as attempt `attempt` (the queue's count of claims: more than one when the
     * run was taken over after its process died). Only a run not yet ended. `q`: the queue's
     * fenced step, so a worker whose lease was taken writes nothing.
     */
    async startRun(runId: string, attempt: number, q: Queryable = db): Promise<JobRunRow | undefined> {
      const r = await q.query<JobRunRow>(
        `UPDATE job_runs SET outcome = 'running', attempt = $2,
                started_at = CASE WHEN outcome = 'queued' THEN now() ELSE started_at END
          WHERE id = $1::bigint AND outcome IN ('queued', 'running') RETURNING ${RUN_COLUMNS}`,
        [runId, attempt],
      );
      return r.rows[0];
    },

    /** How a run ended, on the run and on its schedule. `q`: the queue's fenced settlement. */
    async endRun(
      runId: string,
      outcome: 'ok' | 'failed',
      counts: Record<string, unknown> | null,
      error: string | null,
      q: Queryable = db,
    ): Promise<void> {
      await q.query(
        `WITH run AS (
           UPDATE job_runs SET finished_at = now(), outcome = $2, counts = $3::jsonb, error = $4
            WHERE id = $1::bigint AND outcome IN ('queued', 'running') RETURNING job, started_at
         )
         UPDATE job_schedules s SET last_run_at = run.started_at, last_outcome = $2 FROM run WHERE s.job = run.job`,
        [runId, outcome, counts === null ? null : JSON.stringify(counts), error],
      );
    },

    /** One run, as it stands now. */
    async run(runId: string): Promise<JobRunRow | undefined> {
      const r = await db.query<JobRunRow>(`SELECT ${RUN_COLUMNS} FROM job_runs WHERE id = $1::bigint`, [runId]);
      return r.rows[0];
    },

    /** Recent runs, newest first, of one job or of all. */
    async runs(job: string | undefined, limit: number): Promise<JobRunRow[]> {
      const r = await db.query<JobRunRow>(
        `SELECT ${RUN_COLUMNS} FROM job_runs WHERE ($1::text IS NULL OR job = $1)
          ORDER BY started_at DESC, job_runs.id DESC LIMIT $2`,
        [job ?? null, limit],
      );
      return r.rows;
    },
  };
}
export type SchedulesRepository = ReturnType<typeof schedulesRepository>;
