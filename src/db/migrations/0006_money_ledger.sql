-- The money ledger: every operation payreq asks of a provider, and every movement a provider
-- reports, is one row. A request's amounts (captured, refunded, held) are derived from its
-- succeeded rows in the same transaction as its status, so the books and the status never
-- disagree. No foreign key to payment_requests: the money trail of a deleted request stays.
CREATE TABLE money_ledger (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payment_request_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  -- verification: a card registered (no money); payment: a guest's debit; hold: an amount held
  -- on a card; capture / release: of a hold; refund: money given back; void: a verification or
  -- hold cancelled because it should not exist.
  kind text NOT NULL CHECK (kind IN ('verification', 'payment', 'hold', 'capture', 'release', 'refund', 'void')),
  amount integer NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  provider text NOT NULL,
  -- The provider's transaction this row created or acted on (a refund is a new transaction).
  provider_transaction_id text,
  -- Ours, unique per operation, sent to the provider where it takes one: a retry is the same
  -- operation, and the provider's view finds it by this key.
  idempotency_key text NOT NULL UNIQUE,
  -- requested: written before the call; in_doubt: the call's outcome is unknown (timeout, lost
  -- answer, a process that died) until reconcile asks the provider.
  state text NOT NULL CHECK (state IN ('requested', 'succeeded', 'failed', 'in_doubt')),
  -- Money that arrived where it should not (a refused, cancelled, expired, deleted or already
  -- paid request, a wrong amount or currency): never counted in the request's amounts, and
  -- given back by a refund or void row whose parent_id is this row.
  incident text,
  parent_id bigint REFERENCES money_ledger (id),
  source text NOT NULL CHECK (source IN ('api', 'admin', 'ipn', 'job', 'guest')),
  actor text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX money_ledger_request ON money_ledger (payment_request_id, id);
-- Reconcile's work list: what is not settled yet.
CREATE INDEX money_ledger_unsettled ON money_ledger (updated_at) WHERE state IN ('requested', 'in_doubt');
-- Incidents whose money has not been given back yet.
CREATE INDEX money_ledger_incidents ON money_ledger (id) WHERE incident IS NOT NULL;

-- The history records incidents too (to_status 'INCIDENT', the status itself unchanged).
ALTER TABLE status_history ADD COLUMN ledger_id bigint;

-- Requests that moved money before the ledger existed get the rows their amounts imply, so
-- amounts derived from the ledger equal the amounts already shown.
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
  idempotency_key, state, source, actor)
SELECT id, tenant_id, 'payment', amount_captured, currency, COALESCE(provider, 'sandbox'), provider_transaction_id,
       'backfill:' || id || ':payment', 'succeeded', 'job', 'migration'
  FROM payment_requests WHERE request_type = 'DEPOSIT' AND amount_captured > 0;
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
  idempotency_key, state, source, actor)
SELECT id, tenant_id, 'hold', amount, currency, COALESCE(provider, 'sandbox'), provider_transaction_id,
       'backfill:' || id || ':hold', 'succeeded', 'job', 'migration'
  FROM payment_requests WHERE request_type = 'IMPRINT' AND provider_transaction_id IS NOT NULL
   AND status IN ('AUTHORISED_TO_VALIDATE', 'CAPTURED', 'REFUNDED', 'CANCELLED', 'EXPIRED');
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
  idempotency_key, state, source, actor)
SELECT id, tenant_id, 'capture', amount_captured, currency, COALESCE(provider, 'sandbox'), provider_transaction_id,
       'backfill:' || id || ':capture', 'succeeded', 'job', 'migration'
  FROM payment_requests WHERE request_type = 'IMPRINT' AND amount_captured > 0;
INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
  idempotency_key, state, source, actor)
SELECT id, tenant_id, 'refund', amount_refunded, currency, COALESCE(provider, 'sandbox'), provider_transaction_id,
       'backfill:' || id || ':refund', 'succeeded', 'job', 'migration'
  FROM payment_requests WHERE amount_refunded > 0;

-- One give-back under way or done per incident, whoever tries (the notification, reconcile):
-- a failed one frees the place for the next try.
CREATE UNIQUE INDEX money_ledger_one_giveback ON money_ledger (parent_id)
  WHERE incident IS NOT NULL AND kind IN ('refund', 'void') AND state <> 'failed';

-- Idempotency keys replay for 24 hours; an hourly job purges the older ones.
INSERT INTO job_schedules (job, cron, timezone) VALUES ('purge_idempotency_keys', '17 * * * *', 'Europe/Paris')
ON CONFLICT (job) DO NOTHING;

-- No command line writes a status: 'cli' was a source nothing ever wrote.
ALTER TABLE status_history DROP CONSTRAINT status_history_source_check;
ALTER TABLE status_history ADD CONSTRAINT status_history_source_check
  CHECK (source IN ('api', 'admin', 'ipn', 'job', 'guest'));
