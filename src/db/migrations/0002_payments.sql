-- The provider side of a payment request: which provider took the guest's payment, and the
-- provider's id of the transaction that capture, release and refund act on.
ALTER TABLE payment_requests ADD COLUMN provider text;
ALTER TABLE payment_requests ADD COLUMN provider_transaction_id text;
-- The daily job's bookkeeping: a technical failure leaves the request AUTHORISED for the next run.
ALTER TABLE payment_requests ADD COLUMN hold_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE payment_requests ADD COLUMN last_hold_error text;

-- Each provider event is applied once: a duplicate or a replay hits the primary key.
CREATE TABLE provider_events (
  provider text NOT NULL,
  event_id text NOT NULL,
  payment_request_id uuid,
  outcome text NOT NULL,
  applied boolean NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);
CREATE INDEX provider_events_request ON provider_events (payment_request_id);

-- E-mails due, written in the same transaction as the change that causes them; the mail
-- issue's worker sends them. `cause` is unique: one e-mail per cause, never two.
CREATE TABLE email_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  payment_request_id uuid,
  kind text NOT NULL CHECK (kind IN ('payment_link', 'deposit_confirmation')),
  cause text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at) WHERE status = 'pending';

-- The sandbox provider's own storage, as if it were an external service: its card vault,
-- its transactions and its outgoing notifications (retried until the service answers 2xx).
CREATE TABLE sandbox_tokens (
  token text PRIMARY KEY,
  card_number text NOT NULL,
  exp_month smallint NOT NULL,
  exp_year smallint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE sandbox_transactions (
  id text PRIMARY KEY,
  order_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('verification', 'payment', 'hold', 'refund')),
  status text NOT NULL CHECK (status IN ('accepted', 'authorised', 'captured', 'cancelled', 'refused', 'error', 'refunded')),
  amount integer NOT NULL,
  captured_amount integer NOT NULL DEFAULT 0,
  refunded_amount integer NOT NULL DEFAULT 0,
  currency text NOT NULL,
  token text,
  parent_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_transactions_order ON sandbox_transactions (order_id, created_at);
CREATE TABLE sandbox_notifications (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  url text NOT NULL,
  body text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_notifications_due ON sandbox_notifications (next_attempt_at) WHERE delivered_at IS NULL;
