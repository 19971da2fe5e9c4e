import type { Database } from '../db/index.ts';
import { LeaseLostError } from './errors.ts';
import type { Finish, JobKind } from './job-kind.ts';
import { type ClaimedJob, jobStore } from './job-store.ts';
import { afterFailure } from './retry-policy.ts';

/** The slice of a logger (pino, Fastify's) the queue writes to. */
export interface QueueLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export const silentLog: QueueLog = { info() {}, warn() {}, error() {} };

/** What became of one job: the kind's own outcome, or one of the queue's. */
export type RunOutcome<O extends string> = O | 'failed' | 'lease_lost';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Runs one claimed job to its finish. Never throws: a handler's throw is a failed attempt
 * (retried under the policy), and a lost lease is reported, its outcome left to the new holder.
 */
export async function runClaimed<O extends string>(
  db: Database,
  kind: JobKind<O>,
  job: ClaimedJob,
  now: Date,
  log: QueueLog = silentLog,
): Promise<RunOutcome<O>> {
  const store = jobStore(db);
  let finished = false;
  const once = () => {
    if (finished) throw new Error(`job ${job.id} finished twice`);
    finished = true;
  };
  const finish: Finish = {
    async done(record) {
      once();
      await store.finish(job, record);
    },
    async fail(error, record, opts) {
      once();
      const after = afterFailure(kind.policy, job, now);
      if (opts?.final) after.final = true;
      const write = record?.(after);
      if (after.final) await store.finish(job, write);
      else await store.retry(job, after.runAt, error, write);
      return after;
    },
    async postpone(runAt, record) {
      once();
      await store.postpone(job, runAt, record);
    },
    async keep(record) {
      if (finished) throw new Error(`job ${job.id} kept after it was finished`);
      await store.extend(job, kind.policy.leaseMs, record);
    },
  };
  try {
    return await kind.run(job, finish, now);
  } catch (err) {
    if (err instanceof LeaseLostError) {
      log.warn({ job: job.id, kind: job.kind, ref: job.ref }, 'job lease lost: its new holder records the outcome');
      return 'lease_lost';
    }
    log.error({ job: job.id, kind: job.kind, ref: job.ref, err: message(err) }, 'job failed');
    if (!finished) {
      // Recorded on the job only: the domain row keeps its last known state.
      await finish.fail(message(err)).catch((e: unknown) => {
        log.error({ job: job.id, err: message(e) }, 'job failure not recorded: it runs again once its lease ends');
      });
    }
    return 'failed';
  }
}

export interface RoundOptions {
  /** The clock; the database's own time when unset (tests drive it). */
  now?: Date;
  limit?: number;
  owner?: string;
  log?: QueueLog;
}

/**
 * One round of one kind, for tests, the CLI and one-off runs: claim what is due, run it all at
 * once, answer each outcome once all are finished. The worker (./queue-worker.ts) does the same
 * continuously, slot by slot.
 */
export async function runDueJobs<O extends string>(
  db: Database,
  kind: JobKind<O>,
  opts: RoundOptions = {},
): Promise<RunOutcome<O>[]> {
  const now = opts.now ?? new Date();
  const jobs = await jobStore(db).claim(
    kind.name,
    {
      limit: opts.limit ?? kind.concurrency,
      leaseMs: kind.policy.leaseMs,
      owner: opts.owner ?? workerName(),
      now: opts.now,
    },
    kind.narrow,
  );
  return Promise.all(jobs.map((job) => runClaimed(db, kind, job, now, opts.log)));
}

let name: string | undefined;
/** This process, as a lease owner: host and pid. */
export function workerName(): string {
  name ??= `${process.env.HOSTNAME ?? 'local'}:${process.pid}`;
  return name;
}
