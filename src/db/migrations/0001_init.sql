-- Tenants: one establishment each; the settings that change behaviour per hotel live here.
CREATE TABLE tenants (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  confirmation_email boolean NOT NULL DEFAULT false,
  timezone text NOT NULL DEFAULT 'Europe/Paris',
  -- NULL: the instance default (CREATE_RATE_LIMIT); 0 turns the limit off.
  create_rate_limit integer CHECK (create_rate_limit >= 0),
  hold_days integer NOT NULL DEFAULT 6 CHECK (hold_days BETWEEN 1 AND 30),
  link_lifetime_days integer NOT NULL DEFAULT 30 CHECK (link_lifetime_days BETWEEN 1 AND 365),
  sender_email text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys: `<prefix>.<secret>`; only SHA-256 of the secret is kept.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  prefix text NOT NULL UNIQUE CHECK (length(prefix) = 8),
  secret_hash bytea NOT NULL,
  label text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'revoked')),
  expires_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  status_changed_at timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

-- One row per (tenant, type, year): the PostgreSQL sequence that numbers its references.
-- The row is a registry for operators; numbering itself is nextval(), which holds no lock.
CREATE TABLE reference_counters (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  request_type text NOT NULL CHECK (request_type IN ('IMPRINT', 'DEPOSIT')),
  year integer NOT NULL,
  sequence_name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, request_type, year)
);

CREATE TABLE payment_requests (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  reference text NOT NULL,
  request_type text NOT NULL CHECK (request_type IN ('IMPRINT', 'DEPOSIT')),
  status text NOT NULL CHECK (status IN ('NOT_INITIATED', 'PENDING', 'AUTHORISED', 'AUTHORISED_TO_VALIDATE',
    'CAPTURED', 'REFUSED', 'ERROR', 'CANCELLED', 'EXPIRED', 'REFUNDED')),
  -- Money in minor units (cents): no float ever stores an amount.
  amount integer NOT NULL CHECK (amount BETWEEN 0 AND 100000000),
  amount_captured integer NOT NULL DEFAULT 0 CHECK (amount_captured >= 0),
  amount_refunded integer NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= amount_captured),
  currency text NOT NULL CHECK (currency IN ('EUR', 'CHF', 'USD')),
  guest_email text NOT NULL,
  guest_first_name text NOT NULL,
  guest_last_name text NOT NULL,
  guest_phone text NOT NULL DEFAULT '',
  language text NOT NULL CHECK (language IN ('fr', 'en', 'de')),
  reservation_ref text NOT NULL,
  reservation_data jsonb NOT NULL DEFAULT '{}',
  checkin date,
  masked_pan text NOT NULL DEFAULT '',
  card_expiry_month smallint CHECK (card_expiry_month BETWEEN 1 AND 12),
  card_expiry_year smallint,
  -- Encrypted with SECRET_KEY (payments issue); never returned by the API.
  card_token text,
  email_sent boolean NOT NULL DEFAULT false,
  -- A money command (capture, release, refund, hold) has claimed the row and is talking to
  -- the provider: nobody else may start one until it records the outcome or gives it back.
  pending_action text CHECK (pending_action IN ('capture', 'release', 'refund', 'hold')),
  pending_since timestamptz,
  hold_expires_at timestamptz,
  link_expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (tenant_id, reference)
);
-- Keyset pagination, newest first, with and without a status filter.
CREATE INDEX payment_requests_tenant_created ON payment_requests (tenant_id, created_at DESC, id DESC);
CREATE INDEX payment_requests_tenant_status_created ON payment_requests (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX payment_requests_tenant_reservation ON payment_requests (tenant_id, reservation_ref);
-- The daily job: imprints waiting for their hold, by check-in date.
CREATE INDEX payment_requests_due_holds ON payment_requests (checkin) WHERE status = 'AUTHORISED' AND request_type = 'IMPRINT';

-- Append-only: every status change, whoever made it. No foreign key, so the trail of a
-- deleted request survives its deletion.
CREATE TABLE status_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payment_request_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  from_status text,
  to_status text NOT NULL,
  source text NOT NULL CHECK (source IN ('api', 'admin', 'ipn', 'job', 'guest', 'cli')),
  actor text,
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX status_history_request ON status_history (payment_request_id, id);

-- Idempotency-Key: the first response to a POST, replayed for 24 hours.
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key text NOT NULL,
  fingerprint text NOT NULL,
  -- NULL while the first request is still being processed.
  status_code integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Instance-wide settings (the development SECRET_KEY, for instance).
CREATE TABLE instance_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
