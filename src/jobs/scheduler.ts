import { startPollingLoop } from '../background/index.ts';
import type { Database, Repositories } from '../db/index.ts';
import { type QueuedRun, queueRun } from './job-runs.ts';
import { dateIn, nextRunAfter } from './schedule-times.ts';
import { isScheduledJobName } from './scheduled-jobs.ts';

/** The part of a pino/Fastify logger the scheduler writes to. */
export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A due slot this instance claimed: its run, queued (or joined to the one under way). */
export interface QueuedSlot extends QueuedRun {
  job: string;
  slot: Date;
  date: string;
}

export interface SchedulerDeps {
  db: Database;
  repos: Pick<Repositories, 'schedules'>;
}

/**
 * One scheduler pass at `now`: for each enabled schedule whose next run is due, claim the slot
 * (the unique job_runs row: one instance wins, the others skip it), move the schedule to its
 * first time after `now` (so slots missed while every instance was down collapse into this one
 * catch-up run), and queue its run in the one queue for the day it is in the schedule's zone.
 * The queue's workers run it, on whichever instance takes it first; a run of the same job and
 * day already queued or running (a run by hand, a slow earlier slot) is not doubled: the slot
 * joins it. Returns the slots this instance queued.
 */
export async function runDueJobs(deps: SchedulerDeps, now: Date): Promise<QueuedSlot[]> {
  const schedules = deps.repos.schedules;
  const queued: QueuedSlot[] = [];
  for (const s of await schedules.list()) {
    if (!s.enabled || !isScheduledJobName(s.job)) continue;
    if (s.next_run_at === null) {
      // First sight of a schedule (fresh install, or set without a next run): plan, do not run.
      await schedules.initNextRun(s.job, nextRunAfter(s.cron, s.timezone, now));
      continue;
    }
    if (s.next_run_at.getTime() > now.getTime()) continue;
    const date = dateIn(s.timezone, now);
    let slot: Date | undefined;
    const run = await queueRun(
      deps.db,
      s.job,
      date,
      { now },
      {
        record: async (tx) => {
          const claimed = await schedules.claimSlot(s.job, now, nextRunAfter(s.cron, s.timezone, now), date, tx);
          slot = claimed?.slot;
          return claimed?.run;
        },
        // The slot joins the run under way: its claim stands (the schedule moved on), no record.
        drop: (tx, id) => schedules.dropQueued(id, tx),
      },
    );
    if (run && slot) queued.push({ ...run, job: s.job, slot, date });
  }
  return queued;
}

export interface SchedulerOptions {
  /** Time between passes; a slot is queued at most this late. */
  intervalMs?: number;
  now?: () => Date;
  /** Told of each slot queued (the service wakes its queue's worker at once). */
  onQueued?: (slot: QueuedSlot) => void;
}

export interface Scheduler {
  /** No new pass starts; resolves once the pass in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs runDueJobs every `intervalMs` (15 s by default), first right away. The timer is unref'd
 * so it never keeps a process alive on its own. Every instance may run one: the slot claim,
 * not the timer, decides who queues what, and the queue who runs it.
 */
export function startScheduler(deps: SchedulerDeps, log: SchedulerLog, opts: SchedulerOptions = {}): Scheduler {
  const intervalMs = opts.intervalMs ?? 15_000;
  const now = opts.now ?? (() => new Date());
  return startPollingLoop({
    intervalMs,
    async round() {
      for (const q of await runDueJobs(deps, now())) {
        log.info(
          { job: q.job, slot: q.slot, date: q.date, run: q.run, joined: q.joined },
          q.joined ? 'scheduled slot joined the run under way' : 'scheduled job queued',
        );
        opts.onQueued?.(q);
      }
      // The next pass is at the interval: a job's slots are due by the clock, not by a backlog.
      return false;
    },
    // The database may be away for a moment: the next pass tries again.
    onError: (err) => log.error({ err }, 'scheduler pass failed'),
  });
}
