-- The back office's sign-in, fit for money.

-- Expired back-office sessions read as absent already; this job deletes their rows (and the
-- sign-in throttle's rows nobody has failed on for a day), every hour.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('purge_admin_sessions', '43 * * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;

-- Sign-in throttling in the database (every instance sees it, with or without Redis). One row
-- per username ('user:NAME') and per address ('ip:ADDRESS') that has failed: the failures in a
-- row, when the last one was, and the moment before which a new attempt is refused.
CREATE TABLE sign_in_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL CHECK (failures >= 0),
  last_failure_at timestamptz NOT NULL,
  retry_at timestamptz
);
CREATE INDEX sign_in_throttle_last_failure ON sign_in_throttle (last_failure_at);
