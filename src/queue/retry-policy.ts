/**
 * How a kind of job is retried: declared with the kind (./kinds.ts), applied by the queue alone.
 * Pure: the clock and the job's counts come in, the decision goes out.
 */
export interface RetryPolicy {
  /** The delay after the first failed attempt; it doubles with each later one, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
  /** Given up once this many attempts failed (unset: no bound on the count). */
  maxAttempts?: number;
  /** Given up once a failure comes this long after the job was first due (unset: no bound). */
  giveUpAfterMs?: number;
  /**
   * How long a claim keeps other workers off the job: longer than one attempt can take, so a
   * job is claimed again only once its holder surely gave up (crashed, or hung past it).
   */
  leaseMs: number;
}

/** The delay after failed attempt number `attempts` (1-based): base, 2 base, 4 base, … capped. */
export function retryDelayMs(policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, attempts: number): number {
  return Math.min(policy.baseMs * 2 ** Math.max(attempts - 1, 0), policy.maxMs);
}

/** What becomes of a job after a failed attempt: tried again at `runAt`, or given up (`final`). */
export interface AfterFailure {
  final: boolean;
  runAt: Date;
}

export function afterFailure(
  policy: RetryPolicy,
  job: { attempts: number; first_due_at: Date },
  now: Date,
): AfterFailure {
  const runAt = new Date(now.getTime() + retryDelayMs(policy, job.attempts));
  const tooMany = policy.maxAttempts !== undefined && job.attempts >= policy.maxAttempts;
  const tooLong =
    policy.giveUpAfterMs !== undefined && new Date(job.first_due_at).getTime() <= now.getTime() - policy.giveUpAfterMs;
  return { final: tooMany || tooLong, runAt };
}
