import type { Database, JobRunRow, Repositories, ScheduleRow } from '../db/index.ts';
import { dayEnd, END_OF_TIME } from '../domain/index.ts';
import type { QueueLog, ScheduledJobName } from '../queue/index.ts';
import { type QueuedRun, queueRun, type RunReport, scheduledJobKind, seeRunThrough } from './job-runs.ts';
import { dateIn, scheduledMomentOn } from './schedule-times.ts';
import { type JobsContext, RUN_DAY } from './scheduled-jobs.ts';

/** A run by hand that cannot be made as asked (a test date where real money lives). */
export class RunRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunRefused';
  }
}

export interface RunNowDeps {
  db: Database;
  repos: Pick<Repositories, 'schedules' | 'providerAccounts'>;
  config: { nodeEnv: string; jobLeaseSeconds: number };
  /** The service's context, built only when this caller ends up running the job itself. */
  context: () => Promise<JobsContext>;
  log?: QueueLog;
  onRun?: (report: RunReport) => void;
  /** Told once the run is queued, or joined to the one under way (the command line says it waits). */
  onQueued?: (queued: QueuedRun) => void;
}

export interface RunNowResult {
  run: JobRunRow;
  /** Another run of the same job and day was under way: this is its record. */
  joined: boolean;
}

/**
 * A date after today is a test clock: the run would act on live requests as if that day had
 * come (expire their links, hold and renew their cards). Refused in production, where a date may
 * only catch up a past day, and wherever a hotel takes real payments; fine while every hotel is
 * on the sandbox, whose orders live on that clock.
 */
async function refuseTestClockOnLiveMoney(deps: RunNowDeps, date: string, today: string): Promise<void> {
  if (date <= today) return;
  const why = `--date ${date} is after today (${today}): a later date is a test clock`;
  if (deps.config.nodeEnv === 'production') {
    throw new RunRefused(`${why}, never run in production, where a date may only catch up a past day`);
  }
  const live = await deps.repos.providerAccounts.liveTenants(6);
  if (live.length > 0) {
    const names = live.slice(0, 5).join(', ') + (live.length > 5 ? ', …' : '');
    throw new RunRefused(
      `${why}, allowed only while every hotel is on the sandbox; ${names} take real payments, whose requests it would act on`,
    );
  }
}

/** The moment a run for `date` stands for (see RUN_DAY), and the sandbox's test clock where it has one. */
function momentOf(name: ScheduledJobName, date: string, schedule: ScheduleRow | undefined, tz: string) {
  switch (RUN_DAY[name]) {
    case 'hold_day': {
      const at = (schedule ? scheduledMomentOn(schedule.cron, tz, date) : undefined) ?? new Date(`${date}T12:00:00Z`);
      return { now: at, testClock: at };
    }
    case 'end_of_day':
      return { now: new Date((dayEnd(date, tz) ?? END_OF_TIME).getTime() - 1) };
    case 'noon_utc':
      return { now: new Date(`${date}T12:00:00Z`) };
    case 'none':
      return { now: new Date() };
  }
}

/**
 * `payreq job run NAME [--date D]` and the back office's "Run now": a run of the job for D (by
 * default today in the job's schedule zone), through the one queue like a scheduled run. If a
 * run of the same job and day is queued or running already, whoever started it, this one waits
 * for it and answers its record; otherwise it runs the job here, under the queue's lease (or
 * waits while a worker that took it first does). `startedBy` is recorded with the run.
 */
export async function runJobNow(
  deps: RunNowDeps,
  name: ScheduledJobName,
  opts: { date?: string; startedBy: string },
): Promise<RunNowResult> {
  const schedule = await deps.repos.schedules.get(name);
  const tz = schedule?.timezone ?? 'UTC';
  const today = dateIn(tz, new Date());
  const date = opts.date ?? today;
  await refuseTestClockOnLiveMoney(deps, date, today);
  const moment = opts.date ? momentOf(name, date, schedule, tz) : { now: new Date() };
  const queued = await queueRun(deps.db, name, date, moment, {
    record: (tx) => deps.repos.schedules.requestRun(name, date, opts.startedBy, tx),
    drop: (tx, run) => deps.repos.schedules.dropQueued(run, tx),
  });
  if (!queued) throw new Error(`${name}: no run was queued`);
  deps.onQueued?.(queued);
  const kind = scheduledJobKind(deps.context, deps.repos, name, {
    leaseSeconds: deps.config.jobLeaseSeconds,
    ...(deps.onRun ? { onRun: deps.onRun } : {}),
  });
  const run = await seeRunThrough(deps.db, deps.repos, kind, queued, deps.log);
  return { run, joined: queued.joined };
}
