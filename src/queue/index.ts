/**
 * One queue for every kind of background work (docs/queue.md): e-mails, webhook deliveries,
 * bulk jobs, the sandbox's notifications; renewing holds and importing remittances are meant
 * to be kinds too. The `jobs` table carries the scheduling (due time, attempts, lease, fence
 * token, last error); the domain tables keep their records (email_outbox: what was sent,
 * webhook_deliveries: the delivery log) and, through triggers, enqueue a job whenever a row
 * becomes pending, so every writer enqueues without knowing the queue.
 *
 * One claim rule (claim: lease, FOR UPDATE SKIP LOCKED, a fresh fence token; a kind with
 * lanes, the webhooks, narrows which due jobs it may take), one finish (fenced, in one
 * transaction with the domain row's record: a worker whose lease was taken over changes
 * nothing), one retry policy per kind declared with the kind, and one worker running every
 * kind in its own slots, woken by this process's writers and polling every second (no NOTIFY:
 * PostgreSQL runs notifying commits one at a time). A domain row keeps
 * its record (status, attempts, last error) as before; the queue decides when it runs.
 * New kinds (renewing holds, importing remittances): a name in JobKindName, a JobKind next to
 * its domain, and startServiceQueue (src/service-queue.ts).
 */
export { LeaseLostError } from './errors.ts';
export type { Finish, JobKind } from './job-kind.ts';
export {
  type ClaimedJob,
  type JobKindName,
  type JobStore,
  jobStore,
  type Narrow,
  type RecordOutcome,
  type ScheduledJobName,
} from './job-store.ts';
export { type QueueWorker, type QueueWorkerOptions, startQueueWorker } from './queue-worker.ts';
export { type AfterFailure, afterFailure, type RetryPolicy, retryDelayMs } from './retry-policy.ts';
export { type QueueLog, type RoundOptions, type RunOutcome, runClaimed, runDueJobs, workerName } from './run-jobs.ts';
