import type { Database, JobRunRow, Queryable, Repositories } from '../db/index.ts';
import {
  type ClaimedJob,
  type Finish,
  type JobKind,
  jobStore,
  type QueueLog,
  runClaimed,
  type ScheduledJobName,
  workerName,
} from '../queue/index.ts';
import { type JobsContext, SCHEDULED_JOBS, type ScheduledJob } from './scheduled-jobs.ts';

/**
 * How long a run is leased for unless JOB_LEASE_SECONDS says otherwise. It is renewed every
 * quarter of it, so a run is taken for dead after three renewals in a row failed to land (a
 * database away for longer than DATABASE_TIMEOUT_MS each time), never for being slow.
 */
export const DEFAULT_LEASE_SECONDS = 60;

/**
 * A run whose process died this many times is not run again: its job may be what kills the
 * process, and the next run catches up what is still undone anyway.
 */
export const MAX_ATTEMPTS = 3;

/** What a queued run carries: its record, the day it is for, its moment, the sandbox's test clock. */
export interface RunPayload {
  run: string;
  date: string;
  now: string;
  test_clock?: string;
}

/** How one run ended, for the service's metrics and log. */
export interface RunReport {
  job: string;
  run: string;
  date: string;
  /** 1, or more when this run took over one whose process had died. */
  attempt: number;
  outcome: 'ok' | 'failed';
  counts?: Record<string, unknown>;
  error?: string;
  seconds: number;
}

export interface JobKindOptions {
  /** The jobs by name (tests put a failing or slow one in); the real ones by default. */
  jobs?: Readonly<Partial<Record<ScheduledJobName, ScheduledJob>>>;
  /** How long a run is leased for (JOB_LEASE_SECONDS); renewed every quarter of it while it runs. */
  leaseSeconds?: number;
  /** Told of each run this instance ended (the service counts them, and logs them). */
  onRun?: (report: RunReport) => void;
}

function payloadOf(job: ClaimedJob): RunPayload {
  const p = job.payload as Partial<RunPayload> | null;
  if (!p || typeof p.run !== 'string' || typeof p.date !== 'string' || typeof p.now !== 'string') {
    throw new Error(`job ${job.id} of ${job.kind} carries no run`);
  }
  return p as RunPayload;
}

/**
 * Renews a run's lease every quarter of it until stopped; a renewal that fails (the database
 * away a moment) is left to the next one. The timer is unref'd: a lease never keeps a process
 * alive. A lease taken over meanwhile (a stalled process) makes the run's end write nothing.
 */
function keepLeased(finish: Finish, leaseMs: number): { stop(): Promise<void> } {
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(() => {
    inFlight ??= finish
      .keep()
      .catch(() => {})
      .finally(() => {
        inFlight = undefined;
      });
  }, leaseMs / 4);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}

/**
 * One scheduled job as a kind of the one queue: each queued run (scheduled, or asked by hand) is
 * one job whose ref is the day it is for, so runs of one job and day never overlap. The run's
 * record (job_runs) is marked running and ended in the queue's fenced steps. A run whose process
 * died is taken over when its lease passes, as its next attempt; past MAX_ATTEMPTS, or once its
 * schedule is off, it is closed as failed instead. A failing job is recorded as failed, never
 * retried: the next run catches up.
 */
export function scheduledJobKind(
  ctx: () => Promise<JobsContext>,
  repos: Pick<Repositories, 'schedules'>,
  name: ScheduledJobName,
  opts: JobKindOptions = {},
): JobKind<'ok' | 'failed' | 'abandoned'> {
  const leaseMs = (opts.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  const schedules = repos.schedules;
  const abandon = (finish: Finish, run: string, why: string) =>
    finish.done((tx) => schedules.endRun(run, 'failed', null, why, tx));
  return {
    name,
    concurrency: 1,
    // A failed run is final: the next one catches up what is undone.
    policy: { baseMs: 1000, maxMs: 1000, maxAttempts: 1, leaseMs },
    async run(job, finish) {
      const p = payloadOf(job);
      const schedule = await schedules.get(name);
      if (job.attempts > 1) {
        const died = `abandoned: the process running attempt ${job.attempts - 1} stopped before it ended`;
        if (job.attempts > MAX_ATTEMPTS) {
          await abandon(finish, p.run, `${died} (not run again after ${MAX_ATTEMPTS} attempts)`);
          return 'abandoned';
        }
        const record = await schedules.run(p.run);
        if (record?.started_by === 'scheduler' && schedule && !schedule.enabled) {
          await abandon(finish, p.run, `${died} (the schedule is off)`);
          return 'abandoned';
        }
      }
      let started: JobRunRow | undefined;
      await finish.keep(async (tx) => {
        started = await schedules.startRun(p.run, job.attempts, tx);
      });
      if (!started) {
        // Its record was ended meanwhile: nothing to run.
        await finish.done();
        return 'abandoned';
      }
      const work = opts.jobs?.[name] ?? SCHEDULED_JOBS[name];
      const lease = keepLeased(finish, leaseMs);
      const t0 = performance.now();
      let counts: Record<string, unknown> | undefined;
      let error: string | undefined;
      try {
        const testClock = p.test_clock ? new Date(p.test_clock) : undefined;
        counts = await work(await ctx(), new Date(p.now), schedule?.timezone ?? 'UTC', {
          date: p.date,
          ...(testClock ? { testClock } : {}),
        });
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      } finally {
        await lease.stop();
      }
      const seconds = (performance.now() - t0) / 1000;
      if (counts) await finish.done((tx) => schedules.endRun(p.run, 'ok', counts ?? null, null, tx));
      else
        await finish.fail(error ?? 'failed', () => (tx) => schedules.endRun(p.run, 'failed', null, error ?? null, tx));
      const outcome = counts ? 'ok' : 'failed';
      opts.onRun?.({
        job: name,
        run: p.run,
        date: p.date,
        attempt: job.attempts,
        outcome,
        ...(counts ? { counts } : {}),
        ...(error ? { error } : {}),
        seconds,
      });
      return outcome;
    },
  };
}

/** A run this caller asked for, or the one under way it joined. */
export interface QueuedRun {
  run: string;
  queueJob: string;
  /** Another run of the same job and day was queued or running: this one waits for it. */
  joined: boolean;
}

/**
 * Queues a run of `name` for `date`, in one transaction with its record (`record`: claims a
 * scheduler's slot, or records a run asked by hand; undefined: nothing to queue). If a run of
 * the same job and day is queued or running already, the new record is dropped (`drop`) and
 * that run is answered, joined. A run that ends between the two is followed by a new try.
 */
export async function queueRun(
  db: Database,
  name: ScheduledJobName,
  date: string,
  moment: { now: Date; testClock?: Date },
  steps: {
    record(tx: Queryable): Promise<string | undefined>;
    drop(tx: Queryable, run: string): Promise<void>;
  },
): Promise<QueuedRun | undefined> {
  const store = jobStore(db);
  for (let tries = 0; tries < 5; tries++) {
    const queued = await db.transaction(async (tx) => {
      const run = await steps.record(tx);
      if (run === undefined) return { none: true as const };
      const payload: RunPayload = {
        run,
        date,
        now: moment.now.toISOString(),
        ...(moment.testClock ? { test_clock: moment.testClock.toISOString() } : {}),
      };
      const id = await store.enqueue(name, date, payload, tx);
      if (id !== undefined) return { run, queueJob: id, joined: false };
      await steps.drop(tx, run);
      return { joined: true as const };
    });
    if ('none' in queued) return undefined;
    if (!queued.joined) return queued;
    const under = await store.find(name, date);
    if (under) {
      const p = under.payload as Partial<RunPayload> | null;
      if (p && typeof p.run === 'string') return { run: p.run, queueJob: under.id, joined: true };
    }
    // The run under way ended between the two reads: queue again.
  }
  throw new Error(`${name} for ${date}: could neither queue a run nor find the one under way`);
}

/**
 * Sees a queued run through from here: takes it when it is free (runs it in this process, under
 * its lease, as the worker would) or waits while another holds it, until it has ended; a run
 * whose holder dies is taken over once its lease passes. Answers its record.
 */
export async function seeRunThrough(
  db: Database,
  repos: Pick<Repositories, 'schedules'>,
  kind: JobKind,
  queued: QueuedRun,
  log?: QueueLog,
  pollMs = 200,
): Promise<JobRunRow> {
  const store = jobStore(db);
  const owner = workerName();
  while (await store.live(queued.queueJob)) {
    const job = await store.claimById(kind.name, queued.queueJob, { leaseMs: kind.policy.leaseMs, owner });
    if (job) await runClaimed(db, kind, job, new Date(), log);
    else await new Promise((r) => setTimeout(r, pollMs));
  }
  const record = await repos.schedules.run(queued.run);
  if (!record) throw new Error(`run ${queued.run} has no record`);
  return record;
}
