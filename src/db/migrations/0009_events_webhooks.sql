-- The event feed: every status change of a payment request, with the request as it was then.
-- `txid` is the writing transaction: the feed only shows events whose transaction, and every
-- older one, has ended, so a reader following the feed never steps past an event that a
-- slower transaction commits later (identity values are handed out before commit, not in
-- commit order).
CREATE TABLE events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL,
  payment_request_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_tenant_feed ON events (tenant_id, txid, id);
CREATE INDEX events_request ON events (payment_request_id, id);
CREATE INDEX events_created ON events (created_at);

-- A tenant's webhook endpoints. The signing secret is sealed with SECRET_KEY (it must be read
-- back to sign), bound to the endpoint id. `events` empty: every type.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 8 AND 2000),
  events text[] NOT NULL DEFAULT '{}',
  secret_sealed text NOT NULL,
  status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id) WHERE status = 'enabled';

-- The outbox of webhook deliveries and their log: one row per (endpoint, event), written with
-- the event; attempts, last answer and outcome are kept on the row.
CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id bigint NOT NULL,
  payment_request_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  -- Retries stop 3 days after this (redelivery starts it again).
  first_attempt_due timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
-- Order per request: a delivery waits for the earlier pending ones of its request.
CREATE INDEX webhook_deliveries_request ON webhook_deliveries (endpoint_id, payment_request_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- Changes since a time (GET /api/payment-requests/?updated_after=), oldest change first.
CREATE INDEX payment_requests_tenant_updated ON payment_requests (tenant_id, updated_at, id);

-- Every status change writes a history row, whichever code path makes it; this trigger turns
-- each history row into an event, and the event into the deliveries of the tenant's matching
-- endpoints, in the same transaction. One place no code path can forget. The request is read
-- as it is at the end of the statement (an AFTER trigger runs once every part of a statement,
-- sibling CTEs included, has written), so the event shows the change itself. A deleted
-- request is gone: its event carries what the history row and the request's last event know.
-- The JSON is the API's detail: amounts in currency units, order_cycle, no phone or language.
CREATE FUNCTION status_history_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text := 'payment_request.' || lower(NEW.to_status);
  event_data jsonb;
  event_id bigint;
BEGIN
  SELECT jsonb_build_object(
      'uuid', p.id, 'reference', p.reference, 'request_type', p.request_type, 'status', p.status,
      'amount', (p.amount / 100.0)::float8, 'amount_captured', (p.amount_captured / 100.0)::float8,
      'amount_refunded', (p.amount_refunded / 100.0)::float8, 'currency', p.currency,
      'guest_email', p.guest_email, 'guest_first_name', p.guest_first_name,
      'guest_last_name', p.guest_last_name, 'reservation_ref', p.reservation_ref,
      'reservation_data', p.reservation_data, 'masked_pan', p.masked_pan,
      'card_expiry_month', p.card_expiry_month, 'card_expiry_year', p.card_expiry_year,
      'order_cycle', CASE WHEN p.status IN ('CAPTURED', 'REFUSED', 'CANCELLED', 'EXPIRED', 'REFUNDED')
                          THEN 'CLOSED' ELSE 'OPEN' END,
      'email_sent', p.email_sent,
      'created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'updated_at', to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'hold_expires_at', to_char(p.hold_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'link_expires_at', to_char(p.link_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    INTO event_data
    FROM payment_requests p WHERE p.id = NEW.payment_request_id;
  IF event_data IS NULL THEN
    SELECT e.data INTO event_data FROM events e
     WHERE e.payment_request_id = NEW.payment_request_id ORDER BY e.id DESC LIMIT 1;
    event_data := coalesce(event_data, '{}'::jsonb)
      || jsonb_build_object('uuid', NEW.payment_request_id, 'status', NEW.to_status, 'previous_status', NEW.from_status);
  END IF;
  IF NEW.to_status = 'INCIDENT' THEN
    event_data := event_data || jsonb_build_object('incident', coalesce(NEW.detail, '{}'::jsonb));
  END IF;
  INSERT INTO events (tenant_id, payment_request_id, type, data)
  VALUES (NEW.tenant_id, NEW.payment_request_id, event_type, event_data)
  RETURNING id INTO event_id;
  INSERT INTO webhook_deliveries (endpoint_id, event_id, payment_request_id)
  SELECT w.id, event_id, NEW.payment_request_id FROM webhook_endpoints w
   WHERE w.tenant_id = NEW.tenant_id AND w.status = 'enabled'
     AND (cardinality(w.events) = 0 OR event_type = ANY (w.events));
  RETURN NULL;
END
$$;

CREATE TRIGGER status_history_event AFTER INSERT ON status_history
  FOR EACH ROW EXECUTE FUNCTION status_history_event();
