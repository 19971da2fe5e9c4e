import type { Queryable } from './database.js';

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
}

const SCHEDULE_COLUMNS = 'job, cron, timezone, enabled, last_run_at, next_run_at, last_outcome, updated_at';
const RUN_COLUMNS = 'id::text AS id, job, slot, started_at, finished_at, outcome, counts, error';

/**
 * Job schedules and their run history. The claim of a due slot is the unique
 * (job, slot) row in job_runs: whichever instance inserts it runs the slot, the others skip it.
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
     * schedule already moved on; the unique (job, slot) row settles any other race. Returns the
     * run, or undefined when another instance has it.
     */
    async claim(job: string, now: Date, next: Date): Promise<{ id: string; slot: Date } | undefined> {
      const r = await db.query<{ id: string; slot: Date }>(
        `WITH due AS (
           SELECT job, next_run_at FROM job_schedules
            WHERE job = $1 AND enabled AND next_run_at <= $2::timestamptz
            FOR UPDATE
         ), claimed AS (
           INSERT INTO job_runs (job, slot) SELECT job, next_run_at FROM due
           ON CONFLICT (job, slot) DO NOTHING RETURNING id, slot
         ), moved AS (
           UPDATE job_schedules SET next_run_at = $3 WHERE job = $1 AND EXISTS (SELECT 1 FROM claimed)
         )
         SELECT id::text AS id, slot FROM claimed`,
        [job, now, next],
      );
      return r.rows[0];
    },

    /**
     * A run asked by hand ("run now"), outside the schedule, which it leaves as it is. Its slot
     * is the second it was asked in: a double submit within it runs once (unique job, slot).
     */
    async startManual(job: string): Promise<{ id: string; slot: Date } | undefined> {
      const r = await db.query<{ id: string; slot: Date }>(
        `INSERT INTO job_runs (job, slot) VALUES ($1, date_trunc('second', now()))
         ON CONFLICT (job, slot) DO NOTHING RETURNING id::text AS id, slot`,
        [job],
      );
      return r.rows[0];
    },

    /** Records how a claimed run ended, on the run and on its schedule. */
    async finish(
      runId: string,
      job: string,
      outcome: 'ok' | 'failed',
      counts: Record<string, unknown> | null,
      error: string | null,
    ): Promise<void> {
      await db.query(
        `WITH run AS (
           UPDATE job_runs SET finished_at = now(), outcome = $3, counts = $4::jsonb, error = $5
            WHERE id = $1::bigint RETURNING started_at
         )
         UPDATE job_schedules s SET last_run_at = run.started_at, last_outcome = $3 FROM run WHERE s.job = $2`,
        [runId, job, outcome, counts === null ? null : JSON.stringify(counts), error],
      );
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
