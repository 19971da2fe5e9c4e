import { startPollingLoop } from '../background/index.ts';
import type { ClaimedRun, ScheduleRow } from '../db/index.ts';
import { DEFAULT_LEASE_SECONDS, MAX_ATTEMPTS, runUnderLease } from './run-lease.ts';
import { nextRunAfter } from './schedule-times.ts';
import { type JobsContext, SCHEDULED_JOBS, type ScheduledJob } from './scheduled-jobs.ts';

/** The part of a pino/Fastify logger the scheduler writes to. */
export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RunReport {
  job: string;
  slot: Date;
  /** 1, or more when this run took over a slot whose process had died. */
  attempt: number;
  outcome: 'ok' | 'failed';
  counts?: Record<string, unknown>;
  error?: string;
  /** How long the job ran. */
  seconds: number;
  /** It outlived its lease and its run was taken over (run again, or closed): its outcome was not recorded. */
  superseded: boolean;
}

export interface RunDueOptions {
  /** The jobs by name (tests put a failing one in). */
  jobs?: Readonly<Record<string, ScheduledJob>>;
  /** How long a run is leased for (JOB_LEASE_SECONDS); renewed every quarter of it while it runs. */
  leaseSeconds?: number;
}

/**
 * One scheduler pass at `now`. First, a run left `running` by a process that died (its lease
 * passed) is taken over by one instance and its slot run again, as its next attempt: a crash
 * mid-job no longer loses the slot's work. Then, for each enabled schedule whose next run is
 * due: claim the slot (the unique job_runs row: one instance wins, the others skip it), move the
 * schedule to its first time after `now` (so slots missed while every instance was down
 * collapse into this one catch-up run), run the job under its lease, record the outcome. A
 * failing job is recorded as failed and its schedule goes on. Returns the runs this instance made.
 */
export async function runDueJobs(ctx: JobsContext, now: Date, opts: RunDueOptions = {}): Promise<RunReport[]> {
  const jobs = opts.jobs ?? SCHEDULED_JOBS;
  const leaseSeconds = opts.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const schedules = ctx.repos.schedules;
  const ran: RunReport[] = [];
  const lapsed = new Set(await schedules.jobsWithLapsedRuns());
  for (const s of await schedules.list()) {
    if (lapsed.has(s.job)) {
      const run = await schedules.takeOverLapsed(s.job, { retry: s.enabled, maxAttempts: MAX_ATTEMPTS, leaseSeconds });
      if (run) ran.push(await execute(ctx, s, run, now, jobs, leaseSeconds));
    }
    if (!s.enabled) continue;
    if (s.next_run_at === null) {
      // First sight of a schedule (fresh install, or set without a next run): plan, do not run.
      await schedules.initNextRun(s.job, nextRunAfter(s.cron, s.timezone, now));
      continue;
    }
    if (s.next_run_at.getTime() > now.getTime()) continue;
    const run = await schedules.claim(s.job, now, nextRunAfter(s.cron, s.timezone, now), leaseSeconds);
    if (run) ran.push(await execute(ctx, s, run, now, jobs, leaseSeconds));
  }
  return ran;
}

/** Runs the job of a run this instance holds (claimed, or taken over) and records its outcome. */
async function execute(
  ctx: JobsContext,
  s: ScheduleRow,
  run: ClaimedRun,
  now: Date,
  jobs: Readonly<Record<string, ScheduledJob>>,
  leaseSeconds: number,
): Promise<RunReport> {
  const r = await runUnderLease(ctx.repos.schedules, s.job, run, leaseSeconds, async () => {
    const job = jobs[s.job];
    if (!job) throw new Error(`no job named ${s.job} in this version of the service`);
    return job(ctx, now, s.timezone);
  });
  return { job: s.job, slot: run.slot, attempt: run.attempt, ...r };
}

export interface SchedulerOptions {
  /** Time between passes; a slot runs at most this late. */
  intervalMs?: number;
  now?: () => Date;
  jobs?: Readonly<Record<string, ScheduledJob>>;
  /** Told of each run this instance made (the service counts them in its metrics). */
  onRun?: (report: RunReport) => void;
  /** How long a run is leased for (JOB_LEASE_SECONDS). */
  leaseSeconds?: number;
}

export interface Scheduler {
  /** No new pass starts; resolves once the pass in progress (and its job) has ended. */
  stop(): Promise<void>;
}

/**
 * Runs runDueJobs every `intervalMs` (15 s by default), first right away. The timer is unref'd
 * so it never keeps a process alive on its own. Every instance may run one: the slot claim,
 * not the timer, decides who runs what.
 */
export function startScheduler(ctx: JobsContext, log: SchedulerLog, opts: SchedulerOptions = {}): Scheduler {
  const intervalMs = opts.intervalMs ?? 15_000;
  const now = opts.now ?? (() => new Date());
  return startPollingLoop({
    intervalMs,
    async round() {
      for (const r of await runDueJobs(ctx, now(), { jobs: opts.jobs, leaseSeconds: opts.leaseSeconds })) {
        opts.onRun?.(r);
        const about = { job: r.job, slot: r.slot, attempt: r.attempt };
        if (r.superseded)
          log.error(about, 'scheduled job outlived its lease: its run was taken over, this outcome not recorded');
        if (r.outcome === 'ok') log.info({ ...about, counts: r.counts }, 'scheduled job done');
        else log.error({ ...about, error: r.error }, 'scheduled job failed');
      }
      // The next pass is at the interval: a job's slots are due by the clock, not by a backlog.
      return false;
    },
    // The database may be away for a moment: the next pass tries again.
    onError: (err) => log.error({ err }, 'scheduler pass failed'),
  });
}
