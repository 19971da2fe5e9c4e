export { analyzeTables } from './analyze-tables.ts';
export {
  createDeferredPayments,
  type DeferredPaymentsContext,
  type DeferredPaymentsOptions,
  type DeferredPaymentsResult,
} from './create-deferred-payments.ts';
export { type DigestsResult, sendDailyDigests } from './daily-digests.ts';
export {
  type ExpireContext,
  type ExpireOptions,
  type ExpireResult,
  expirePaymentRequests,
} from './expire-payment-requests.ts';
export { type RemindersResult, sendPaymentReminders } from './payment-reminders.ts';
export { DELIVERED_RETENTION_DAYS, EVENT_RETENTION_DAYS, purgeEvents } from './purge-events.ts';
export { type ReconcileResult, reconcileClaims } from './reconcile-claims.ts';
export { type RenewHoldsContext, type RenewHoldsOptions, type RenewHoldsResult, renewHolds } from './renew-holds.ts';
export { DEFAULT_LEASE_SECONDS, type LeasedRunResult, MAX_ATTEMPTS, runUnderLease } from './run-lease.ts';
export { cronProblem, dateIn, nextRunAfter, scheduledMomentOn } from './schedule-times.ts';
export { type JobsContext, SCHEDULED_JOBS, type ScheduledJob } from './scheduled-jobs.ts';
export {
  type RunDueOptions,
  type RunReport,
  runDueJobs,
  type Scheduler,
  type SchedulerLog,
  type SchedulerOptions,
  startScheduler,
} from './scheduler.ts';
