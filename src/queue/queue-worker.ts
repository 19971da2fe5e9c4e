import { startPollingLoop } from '../background/index.ts';
import type { Database } from '../db/index.ts';
import type { JobKind } from './job-kind.ts';
import { type JobKindName, jobStore } from './job-store.ts';
import { type QueueLog, runClaimed, silentLog, workerName } from './run-jobs.ts';

export interface QueueWorkerOptions {
  db: Database;
  kinds: readonly JobKind[];
  log?: QueueLog;
  /**
   * The longest wait between two looks at the queue (1 s): how soon a job queued by another
   * process is seen. A writer in this process wakes the worker at once (`wake`). No NOTIFY:
   * PostgreSQL runs the commits of notifying transactions one at a time.
   */
  pollMs?: number;
}

export interface QueueWorker {
  /** Looks at the queue now (a test, or a writer in this process that knows work is due). */
  wake(): void;
  /** Waits for the jobs in flight (each bounded by its kind's time limits). */
  stop(): Promise<void>;
}

/** How soon a kind with due jobs it could not take looks again (the former webhook poll). */
const HELD_BACK_WAIT_MS = 2000;

/**
 * The one worker of every kind. Not in rounds: whenever a job ends its slot is filled again
 * with whatever of its kind is due, so a job that hangs holds one slot of its kind, never
 * another kind's. Between jobs it sleeps until the next one is due, or until this process
 * wakes it (work queued here), or at most `pollMs`.
 */
export function startQueueWorker(opts: QueueWorkerOptions): QueueWorker {
  const { db, kinds } = opts;
  const log = opts.log ?? silentLog;
  const store = jobStore(db);
  const owner = workerName();
  const pollMs = opts.pollMs ?? 1000;
  const inFlight = new Map<JobKindName, Set<Promise<unknown>>>(kinds.map((k) => [k.name, new Set()]));
  const all = () => [...inFlight.values()].flatMap((s) => [...s]);

  async function fill(kind: JobKind): Promise<void> {
    const running = inFlight.get(kind.name) as Set<Promise<unknown>>;
    const free = kind.concurrency - running.size;
    if (free <= 0) return;
    // Claimed by the database's clock; retries are timed from this one's.
    const jobs = await store.claim(kind.name, { limit: free, leaseMs: kind.policy.leaseMs, owner }, kind.narrow);
    const now = new Date();
    for (const job of jobs) {
      const run: Promise<unknown> = runClaimed(db, kind, job, now, log).finally(() => {
        running.delete(run);
        loop.wake();
      });
      running.add(run);
    }
  }

  const loop = startPollingLoop({
    intervalMs: pollMs,
    async round() {
      // A kind with every slot taken is woken by its next free slot, not by its due jobs.
      const open = () => kinds.filter((k) => (inFlight.get(k.name)?.size ?? 0) < k.concurrency).map((k) => k.name);
      // One look for every kind, then a claim only for those with a job due: an idle round is
      // one statement however many kinds there are (the scheduled jobs are a kind each).
      const due = await store.msUntilNextDue(open());
      const claimable = kinds.filter((k) => (due.get(k.name) ?? 1) <= 0);
      for (const kind of claimable) await fill(kind);
      let wait = pollMs;
      if (claimable.length === 0) {
        for (const ms of due.values()) wait = Math.min(wait, ms);
        return wait;
      }
      for (const ms of (await store.msUntilNextDue(open())).values()) {
        // Due, yet not claimed with slots free: held back (an endpoint's limits or back-off, or
        // another instance's claim in progress). Looked at again shortly, never in a spin.
        wait = Math.min(wait, ms > 0 ? ms : HELD_BACK_WAIT_MS);
      }
      return wait;
    },
    onError: (err) => log.error({ err: err instanceof Error ? err.message : String(err) }, 'queue round failed'),
  });

  return {
    wake: () => loop.wake(),
    async stop() {
      await loop.stop();
      await Promise.all(all());
    },
  };
}
