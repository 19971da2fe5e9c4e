// Bulk actions of the back office: one queued job per selected request, run by a worker.
export { type BulkContext, type BulkLog, runBulkJobs, startBulkWorker } from './bulk-worker.js';
