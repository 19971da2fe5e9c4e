-- The hotel's own system (docs/apaleo.md): a tenant's connection to its Apaleo property, the
-- postings of every money movement on the reservation's guest folio, and Apaleo's reservation
-- events. Postings and events are jobs of the one queue (kind `pms`), enqueued by triggers on
-- their own tables, as the e-mail outbox's are.

-- One connection per tenant: the property, where Apaleo is reached, the custom app's client id
-- and secret sealed (src/secrets, bound to the tenant id), and the optional reservation rule.
CREATE TABLE pms_connections (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('apaleo')),
  property_id text NOT NULL CHECK (length(property_id) BETWEEN 1 AND 100),
  property_name text,
  api_url text NOT NULL,
  identity_url text NOT NULL,
  secrets_sealed text NOT NULL,
  -- Every connect draws a new one: a token cached for an older connection is never used.
  version bigint NOT NULL DEFAULT 1,
  -- Requests made from Apaleo's reservation webhooks: none, an IMPRINT of the stay, or a
  -- DEPOSIT of N % or N nights.
  reservation_rule text CHECK (reservation_rule IN ('imprint', 'deposit_percent', 'deposit_nights')),
  reservation_rule_value integer CHECK (reservation_rule_value BETWEEN 1 AND 100),
  -- Apaleo signs nothing: the endpoint's URL carries a secret, kept here as its SHA-256 only.
  webhook_secret_hash text,
  webhook_subscription_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (reservation_rule IS NULL OR reservation_rule = 'imprint' OR reservation_rule_value IS NOT NULL)
);

-- One posting per money movement (a ledger row that succeeded): pending until Apaleo has it on
-- the folio (posted), refused for good (failed: retried by hand once fixed), or not for this
-- property at all (skipped: the reference is not one of its reservations).
CREATE TABLE pms_postings (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- No foreign key: a deleted request's money stays posted, as its history stays.
  payment_request_id uuid NOT NULL,
  ledger_id bigint NOT NULL UNIQUE,
  reference text NOT NULL,
  reservation_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
  amount integer NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The operation's own key (the ledger's), sent as Apaleo's Idempotency-Key.
  idempotency_key text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'posted', 'failed', 'skipped')),
  -- Apaleo's reason of a refusal, why a posting was skipped, or the last error while pending.
  reason text,
  method text,
  folio_id text,
  apaleo_id text,
  attempts integer NOT NULL DEFAULT 0,
  -- Times retried by hand after a refusal: each round has a key of its own (Apaleo may keep a
  -- refusal under the key it was given).
  retries integer NOT NULL DEFAULT 0,
  -- An attempt may have reached Apaleo without its answer: the folio is read before posting again.
  maybe_sent boolean NOT NULL DEFAULT false,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- When it was first due, or retried by hand: the back-off's first hour counts from here.
  first_due_at timestamptz NOT NULL DEFAULT now(),
  posted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pms_postings_tenant ON pms_postings (tenant_id, id DESC);
CREATE INDEX pms_postings_request ON pms_postings (payment_request_id, id);
CREATE INDEX pms_postings_failed ON pms_postings (tenant_id, id DESC) WHERE state = 'failed';

-- Apaleo's reservation events as delivered (each once: Apaleo may send one twice).
CREATE TABLE pms_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  type text NOT NULL,
  reservation_id text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  outcome text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, event_id)
);

-- Every money movement of a connected tenant gets its posting in the statement that records it
-- as succeeded (the IPN's payment, a capture's or refund's outcome, reconcile, a settlement by
-- hand): one primary-key lookup of the connection, and for a connected tenant one row more.
-- Holds, releases, card registrations and voids move no money; money that arrived where it
-- should not (an incident) and its give-back are not the stay's.
CREATE FUNCTION pms_posting_of_movement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pms_postings (tenant_id, payment_request_id, ledger_id, reference, reservation_id, kind, amount,
                            currency, idempotency_key)
  SELECT NEW.tenant_id, p.id, NEW.id, p.reference, p.reservation_ref,
         CASE WHEN NEW.kind = 'refund' THEN 'refund' ELSE 'payment' END, NEW.amount, NEW.currency,
         NEW.idempotency_key
    FROM pms_connections c JOIN payment_requests p ON p.id = NEW.payment_request_id
   WHERE c.tenant_id = NEW.tenant_id
  ON CONFLICT (ledger_id) DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER pms_posting_of_movement AFTER INSERT OR UPDATE OF state ON money_ledger
  FOR EACH ROW WHEN (NEW.state = 'succeeded' AND NEW.incident IS NULL AND NEW.amount > 0
                     AND NEW.kind IN ('payment', 'capture', 'refund'))
  EXECUTE FUNCTION pms_posting_of_movement();

-- A payment found to be an incident after it was recorded (the request was busy) is not posted.
CREATE FUNCTION pms_posting_of_incident() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pms_postings WHERE ledger_id = NEW.id AND state = 'pending' AND attempts = 0;
  RETURN NULL;
END
$$;
CREATE TRIGGER pms_posting_of_incident AFTER UPDATE OF incident ON money_ledger
  FOR EACH ROW WHEN (NEW.incident IS NOT NULL) EXECUTE FUNCTION pms_posting_of_incident();

-- A pending posting or event has its job (ref `posting:<id>`, `event:<id>`); one that stops being
-- pending has none. Lock order as the other kinds' triggers (0049): a job a worker holds is
-- skipped, its worker's fenced record finds the row settled.
CREATE FUNCTION jobs_follow_pms() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r text := TG_ARGV[0] || ':' || NEW.id;
BEGIN
  IF NEW.state = 'pending' THEN
    INSERT INTO jobs (kind, ref, run_at, first_due_at)
    VALUES ('pms', r, now(), now())
    ON CONFLICT (kind, ref) DO NOTHING;
  ELSIF TG_OP = 'UPDATE' AND OLD.state = 'pending' THEN
    DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE kind = 'pms' AND ref = r FOR UPDATE SKIP LOCKED);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_follow_pms_postings AFTER INSERT OR UPDATE OF state ON pms_postings
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_pms('posting');
CREATE TRIGGER jobs_follow_pms_events AFTER INSERT OR UPDATE OF state ON pms_events
  FOR EACH ROW EXECUTE FUNCTION jobs_follow_pms('event');

CREATE FUNCTION jobs_forget_pms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM jobs WHERE id IN (
    SELECT id FROM jobs WHERE kind = 'pms' AND ref IN (SELECT TG_ARGV[0] || ':' || id FROM gone) FOR UPDATE SKIP LOCKED);
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_forget_pms_postings AFTER DELETE ON pms_postings REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_pms('posting');
CREATE TRIGGER jobs_forget_pms_events AFTER DELETE ON pms_events REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION jobs_forget_pms('event');
