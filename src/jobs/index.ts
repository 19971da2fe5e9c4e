export { analyzeTables } from './analyze-tables.js';
export {
  createDeferredPayments,
  type DeferredPaymentsContext,
  type DeferredPaymentsOptions,
  type DeferredPaymentsResult,
} from './create-deferred-payments.js';
export { type DigestsResult, sendDailyDigests } from './daily-digests.js';
export {
  type ExpireContext,
  type ExpireOptions,
  type ExpireResult,
  expirePaymentRequests,
} from './expire-payment-requests.js';
export { type RemindersResult, sendPaymentReminders } from './payment-reminders.js';
export { DELIVERED_RETENTION_DAYS, EVENT_RETENTION_DAYS, purgeEvents } from './purge-events.js';
export { type ReconcileResult, reconcileClaims } from './reconcile-claims.js';
export { DEFAULT_LEASE_SECONDS, type LeasedRunResult, MAX_ATTEMPTS, runUnderLease } from './run-lease.js';
export { cronProblem, dateIn, nextRunAfter } from './schedule-times.js';
export { type JobsContext, SCHEDULED_JOBS, type ScheduledJob } from './scheduled-jobs.js';
export {
  type RunDueOptions,
  type RunReport,
  runDueJobs,
  type Scheduler,
  type SchedulerLog,
  type SchedulerOptions,
  startScheduler,
} from './scheduler.js';
