export { analyzeTables } from './analyze-tables.ts';
export { type DigestsResult, sendDailyDigests } from './daily-digests.ts';
export {
  type ExpireContext,
  type ExpireOptions,
  type ExpireResult,
  expirePaymentRequests,
} from './expire-payment-requests.ts';
export { type Deadline, type ExpiryBatch, type ExpiryRepository, expiryRepository } from './expiry-repository.ts';
export {
  DEFAULT_LEASE_SECONDS,
  type JobKindOptions,
  MAX_ATTEMPTS,
  type QueuedRun,
  queueRun,
  type RunPayload,
  type RunReport,
  scheduledJobKind,
  seeRunThrough,
} from './job-runs.ts';
export { type RemindersResult, sendPaymentReminders } from './payment-reminders.ts';
export { DELIVERED_RETENTION_DAYS, EVENT_RETENTION_DAYS, purgeEvents } from './purge-events.ts';
export { type ReconcileResult, reconcileClaims } from './reconcile-claims.ts';
export { type RunNowDeps, type RunNowResult, RunRefused, runJobNow } from './run-job-now.ts';
export { cronProblem, dateIn, nextRunAfter, scheduledMomentOn } from './schedule-times.ts';
export {
  isScheduledJobName,
  type JobsContext,
  RUN_DAY,
  type RunDay,
  type RunFor,
  SCHEDULED_JOB_NAMES,
  SCHEDULED_JOBS,
  type ScheduledJob,
} from './scheduled-jobs.ts';
export {
  type QueuedSlot,
  runDueJobs,
  type Scheduler,
  type SchedulerDeps,
  type SchedulerLog,
  type SchedulerOptions,
  startScheduler,
} from './scheduler.ts';
