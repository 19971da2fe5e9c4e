import type { ClaimedJob, JobKindName, Narrow, RecordOutcome } from './job-store.ts';
import type { AfterFailure, RetryPolicy } from './retry-policy.ts';

/**
 * How a handler ends its job. Each finishes it in one transaction with the domain row's record
 * (`record`), fenced by the claim: a handler whose lease was taken over gets LeaseLostError and
 * changes nothing. A handler finishes its job exactly once.
 */
export interface Finish {
  /** The work is done: the job leaves the queue. */
  done(record?: RecordOutcome): Promise<void>;
  /**
   * The attempt failed: tried again after the kind's back-off, or given up when its policy says
   * so (or when `final`: a failure no retry can mend). `record` learns which.
   */
  fail(
    error: string,
    record?: (after: AfterFailure) => RecordOutcome | undefined,
    opts?: { final?: boolean },
  ): Promise<AfterFailure>;
  /** Not attempted after all: due again at `runAt`, the attempt not counted. */
  postpone(runAt: Date, record?: RecordOutcome): Promise<void>;
  /**
   * Still at work: the lease is extended by the kind's lease from now, and `record` written
   * with it, fenced (a handler whose lease was taken over gets LeaseLostError). A long job
   * calls it as it starts (marking its domain row) and then every so often; it finishes nothing.
   */
  keep(record?: RecordOutcome): Promise<void>;
}

/**
 * One kind of background work, with its retry policy. `run` does one attempt and finishes it;
 * its answer names the outcome (for counts and logs). A `run` that throws is a failed attempt
 * under the policy, the error's message recorded on the job.
 */
export interface JobKind<Outcome extends string = string> {
  readonly name: JobKindName;
  readonly policy: RetryPolicy;
  /** Jobs of this kind one instance runs at once: a slow kind fills its own slots only. */
  readonly concurrency: number;
  run(job: ClaimedJob, finish: Finish, now: Date): Promise<Outcome>;
  /** Which due jobs it may take now, when its jobs share limited lanes (see Narrow). */
  readonly narrow?: Narrow;
}
