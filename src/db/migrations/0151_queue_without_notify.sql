-- A queued job no longer sends NOTIFY. PostgreSQL serializes the commits of notifying
-- transactions (one database-wide lock from a notifying transaction's pre-commit to its end,
-- across its WAL flush), and every create, IPN, capture and refund queues a job: their commits
-- ran one at a time and never shared a flush (pgbench, 16 clients, a one-row insert: about
-- 9,000 a second alone, 2,200 with pg_notify in the same transaction). The workers find new
-- jobs by polling every second, and the instance that queued the work wakes its own at once.
DROP TRIGGER IF EXISTS jobs_notify_queued ON jobs;
DROP TRIGGER IF EXISTS jobs_notify_due ON jobs;
DROP FUNCTION IF EXISTS jobs_notify();
