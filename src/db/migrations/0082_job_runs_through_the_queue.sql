-- Every run of a scheduled job, scheduled or by hand, goes through the one queue: a job of the
-- job's own kind whose ref is the day it runs for, so two runs of one job and day exclude each
-- other (the queue's unique kind and ref), on one instance or several. job_runs stays the record
-- of each run (the queue's domain row, as email_outbox is for e-mails): queued, running, then
-- ok or failed; its lease now lives on its queue job.
ALTER TABLE job_runs ADD COLUMN run_date date;
-- Who asked for it: 'scheduler', 'cli', or 'user:<username>' (the back office's "Run now").
ALTER TABLE job_runs ADD COLUMN started_by text;
ALTER TABLE job_runs DROP CONSTRAINT job_runs_outcome_check;
ALTER TABLE job_runs ADD CONSTRAINT job_runs_outcome_check
  CHECK (outcome IN ('queued', 'running', 'ok', 'failed'));
-- The queue's lease replaces the run's own.
ALTER TABLE job_runs DROP CONSTRAINT job_runs_running_leased;
ALTER TABLE job_runs ALTER COLUMN lease_until DROP DEFAULT;
DROP INDEX job_runs_lease;
-- Runs left `running` by the previous release's process, if it died: closed; the next slot
-- catches up what is still undone (every job asks what is undone, not which date it is).
UPDATE job_runs SET outcome = 'failed', finished_at = now(),
       error = 'abandoned: its process stopped before it ended (closed by an upgrade)'
 WHERE outcome = 'running' AND lease_until < now();
UPDATE job_runs SET lease_until = NULL;
