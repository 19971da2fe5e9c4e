import type { ClaimedRun, SchedulesRepository } from '../db/index.ts';

/**
 * How long a run is leased for unless JOB_LEASE_SECONDS says otherwise. It is renewed every
 * quarter of it, so a run is taken for dead after three renewals in a row failed to land (a
 * database away for longer than DATABASE_TIMEOUT_MS each time), never for being slow.
 */
export const DEFAULT_LEASE_SECONDS = 60;

/**
 * A slot whose process died this many times is not run again: its job may be what kills the
 * process, and the next slot catches up what is still undone anyway.
 */
export const MAX_ATTEMPTS = 3;

export interface LeasedRunResult {
  outcome: 'ok' | 'failed';
  counts?: Record<string, unknown>;
  error?: string;
  seconds: number;
  /**
   * The run's lease had passed (the process stalled longer than the lease) and its run was
   * taken over, to be run again or closed: this outcome was not recorded.
   */
  superseded: boolean;
}

/**
 * Does the work of a run this instance holds, renewing its lease meanwhile, and records how it
 * ended. A failing job is recorded as failed, not thrown; a failure to record it is thrown.
 */
export async function runUnderLease(
  schedules: SchedulesRepository,
  job: string,
  run: ClaimedRun,
  leaseSeconds: number,
  work: () => Promise<Record<string, unknown>>,
): Promise<LeasedRunResult> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  const lease = keepLeased(schedules, run, leaseSeconds);
  let outcome: Omit<LeasedRunResult, 'seconds' | 'superseded'>;
  try {
    outcome = { outcome: 'ok', counts: await work() };
  } catch (err) {
    outcome = { outcome: 'failed', error: err instanceof Error ? err.message : String(err) };
  } finally {
    await lease.stop();
  }
  const recorded = await schedules.finish(run, job, outcome.outcome, outcome.counts ?? null, outcome.error ?? null);
  return { ...outcome, seconds: seconds(), superseded: !recorded };
}

/**
 * Renews the run's lease every quarter of it until stopped. A renewal that fails (the database
 * away a moment) is left to the next one; one is in flight at most. The timer is unref'd: a
 * lease never keeps a process alive.
 */
function keepLeased(schedules: SchedulesRepository, run: ClaimedRun, leaseSeconds: number): { stop(): Promise<void> } {
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(
    () => {
      inFlight ??= schedules
        .renewLease(run, leaseSeconds)
        .catch(() => {})
        .finally(() => {
          inFlight = undefined;
        });
    },
    (leaseSeconds * 1000) / 4,
  );
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      // No renewal left running after the run is recorded (or the database closed).
      await inFlight;
    },
  };
}
