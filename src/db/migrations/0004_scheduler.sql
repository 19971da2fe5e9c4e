-- Scheduled jobs: the schedules live in the database so every instance reads the
-- same ones and an operator changes them without a deploy.
CREATE TABLE job_schedules (
  job text PRIMARY KEY,
  cron text NOT NULL,
  timezone text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  last_run_at timestamptz,
  -- NULL: computed by the first scheduler pass that sees the schedule.
  next_run_at timestamptz,
  last_outcome text CHECK (last_outcome IN ('ok', 'failed')),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO job_schedules (job, cron, timezone) VALUES
  ('create_deferred_payments', '0 7 * * *', 'Europe/Paris'),
  ('expire_payment_requests', '0 * * * *', 'Europe/Paris');

-- One row per run. The unique (job, slot) is the claim: of several instances finding the same
-- slot due, only the one whose insert succeeds runs it, so each slot runs exactly once.
CREATE TABLE job_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job text NOT NULL,
  slot timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  outcome text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'ok', 'failed')),
  counts jsonb,
  error text,
  UNIQUE (job, slot)
);
CREATE INDEX job_runs_recent ON job_runs (job, started_at DESC);

-- The expiry job's lookups, by deadline.
CREATE INDEX payment_requests_hold_expiry ON payment_requests (hold_expires_at) WHERE hold_expires_at IS NOT NULL;
CREATE INDEX payment_requests_link_expiry ON payment_requests (link_expires_at);
