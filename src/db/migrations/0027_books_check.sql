-- `payreq books check` and the daily books_check job: every order whose ledger moved in a
-- window, against the provider's view of it. A run lists its orders when it opens, then
-- records each order's verdict as soon as it is known, so a run that stops (interrupted, a
-- process that died) is started again where it stopped: the orders already checked are not
-- asked again. One unfinished run per scope (one tenant, or every tenant); the process
-- running it holds a lease, renewed with each verdict.
CREATE TABLE books_check_runs (
  id uuid PRIMARY KEY,
  -- A tenant id, or 'all'.
  scope text NOT NULL,
  tenant_id uuid,
  since timestamptz NOT NULL,
  until timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  lease uuid NOT NULL,
  leased_until timestamptz NOT NULL
);
CREATE UNIQUE INDEX books_check_runs_unfinished ON books_check_runs (scope) WHERE finished_at IS NULL;

-- The orders of a run; verdict NULL: not checked yet. detail: what the check found (the nets,
-- open holds, unsettled rows), so a resumed run still reports the orders checked before it.
CREATE TABLE books_check_orders (
  run_id uuid NOT NULL REFERENCES books_check_runs (id) ON DELETE CASCADE,
  payment_request_id uuid NOT NULL,
  verdict text CHECK (verdict IN ('agree', 'disagree', 'in_doubt')),
  detail jsonb,
  checked_at timestamptz,
  PRIMARY KEY (run_id, payment_request_id)
);

-- A disagreement between payreq's books and the provider's on one request, found by a check:
-- open until a later check finds them equal again (resolved_at). One open per request. No
-- foreign key, like the ledger: the trail of a deleted request stays.
CREATE TABLE books_incidents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payment_request_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  reference text,
  currency text NOT NULL,
  -- net_differs and / or hold_open.
  problems text[] NOT NULL,
  -- Minor units, as last seen.
  provider_net bigint NOT NULL,
  payreq_net bigint NOT NULL,
  open_holds integer NOT NULL,
  -- The request's status when last seen (NULL: deleted).
  status text,
  opened_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz
);
CREATE UNIQUE INDEX books_incidents_one_open ON books_incidents (payment_request_id) WHERE resolved_at IS NULL;
-- The Books page and the metric read the open ones, by tenant.
CREATE INDEX books_incidents_open ON books_incidents (tenant_id, opened_at) WHERE resolved_at IS NULL;
CREATE INDEX books_incidents_request ON books_incidents (payment_request_id, id);

-- Daily, before the hotel's day starts; a run checks the last 7 days (docs/operations.md).
INSERT INTO job_schedules (job, cron, timezone) VALUES ('books_check', '30 5 * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;
