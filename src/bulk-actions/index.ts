// Bulk actions of the back office: one queued job per selected request, run by the queue's worker.
export { type BulkContext, type BulkLog, type BulkOutcome, bulkJobKind, runBulkJobs } from './bulk-worker.ts';
