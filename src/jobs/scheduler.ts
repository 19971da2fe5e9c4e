import type { ScheduleRow } from '../db/index.js';
import { nextRunAfter } from './schedule-times.js';
import { type JobsContext, SCHEDULED_JOBS, type ScheduledJob } from './scheduled-jobs.js';

/** The part of a pino/Fastify logger the scheduler writes to. */
export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RunReport {
  job: string;
  slot: Date;
  outcome: 'ok' | 'failed';
  counts?: Record<string, unknown>;
  error?: string;
  /** How long the job ran. */
  seconds: number;
}

export interface RunDueOptions {
  /** The jobs by name (tests put a failing one in). */
  jobs?: Readonly<Record<string, ScheduledJob>>;
}

/**
 * One scheduler pass at `now`. For each enabled schedule whose next run is due:
 * claim the slot (the unique job_runs row: one instance wins, the others skip it), move the
 * schedule to its first time after `now` (so slots missed while every instance was down
 * collapse into this one catch-up run), run the job, record the outcome. A failing job is
 * recorded as failed and its schedule goes on. Returns the runs this instance made.
 */
export async function runDueJobs(ctx: JobsContext, now: Date, opts: RunDueOptions = {}): Promise<RunReport[]> {
  const jobs = opts.jobs ?? SCHEDULED_JOBS;
  const schedules = ctx.repos.schedules;
  const ran: RunReport[] = [];
  for (const s of await schedules.list()) {
    if (!s.enabled) continue;
    if (s.next_run_at === null) {
      // First sight of a schedule (fresh install, or set without a next run): plan, do not run.
      await schedules.initNextRun(s.job, nextRunAfter(s.cron, s.timezone, now));
      continue;
    }
    if (s.next_run_at.getTime() > now.getTime()) continue;
    const report = await runSlot(ctx, s, now, jobs);
    if (report) ran.push(report);
  }
  return ran;
}

async function runSlot(
  ctx: JobsContext,
  s: ScheduleRow,
  now: Date,
  jobs: Readonly<Record<string, ScheduledJob>>,
): Promise<RunReport | undefined> {
  const claimed = await ctx.repos.schedules.claim(s.job, now, nextRunAfter(s.cron, s.timezone, now));
  if (claimed === undefined) return undefined;
  const { id: runId, slot } = claimed;
  const job = jobs[s.job];
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  try {
    if (!job) throw new Error(`no job named ${s.job} in this version of the service`);
    const counts = await job(ctx, now, s.timezone);
    await ctx.repos.schedules.finish(runId, s.job, 'ok', counts, null);
    return { job: s.job, slot, outcome: 'ok', counts, seconds: seconds() };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await ctx.repos.schedules.finish(runId, s.job, 'failed', null, error);
    return { job: s.job, slot, outcome: 'failed', error, seconds: seconds() };
  }
}

export interface SchedulerOptions {
  /** Time between passes; a slot runs at most this late. */
  intervalMs?: number;
  now?: () => Date;
  jobs?: Readonly<Record<string, ScheduledJob>>;
  /** Told of each run this instance made (the service counts them in its metrics). */
  onRun?: (report: RunReport) => void;
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
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();

  const tick = () => {
    pass = (async () => {
      try {
        for (const r of await runDueJobs(ctx, now(), { jobs: opts.jobs })) {
          opts.onRun?.(r);
          if (r.outcome === 'ok') log.info({ job: r.job, slot: r.slot, counts: r.counts }, 'scheduled job done');
          else log.error({ job: r.job, slot: r.slot, error: r.error }, 'scheduled job failed');
        }
      } catch (err) {
        // The database may be away for a moment: the next pass tries again.
        log.error({ err }, 'scheduler pass failed');
      }
      if (!stopped) {
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      }
    })();
  };
  tick();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}
