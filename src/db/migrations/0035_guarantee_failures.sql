-- Failed guarantees are caught and recovered (docs/lifecycle.md, "A refused hold").
--
-- A hold the bank refuses no longer ends the request in REFUSED: the IMPRINT moves to ERROR (not
-- terminal), so the guest may register another card on the same link and the next daily run
-- holds it, and the hotel may still cancel. The request says when the guarantee last failed and
-- how many times; `guarantee_asks` counts the e-mails that asked the guest for another card, up
-- to the tenant's `guarantee_max_asks` (when `guarantee_ask_guest` is on).
ALTER TABLE payment_requests
  ADD COLUMN guarantee_failed_at timestamptz,
  ADD COLUMN guarantee_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN guarantee_asks integer NOT NULL DEFAULT 0;

ALTER TABLE tenants
  ADD COLUMN guarantee_ask_guest boolean NOT NULL DEFAULT true,
  ADD COLUMN guarantee_max_asks integer NOT NULL DEFAULT 2 CHECK (guarantee_max_asks BETWEEN 0 AND 10);

-- The back office's "needs attention": a tenant's failed guarantees still waiting for a card.
-- Partial, so it holds only those few rows whatever the table's size.
CREATE INDEX payment_requests_failed_guarantees ON payment_requests (tenant_id, guarantee_failed_at DESC, id)
  WHERE status = 'ERROR' AND guarantee_failed_at IS NOT NULL;

-- The guest is asked for another card; the hotel is told at its contact address. Each is
-- queued once per refused hold (the cause names the hold's ledger row).
ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice',
                  'guarantee_failed_guest', 'guarantee_failed_hotel'));

-- The detail (src/events/request-detail.ts) shows the guarantee's failures.
CREATE OR REPLACE FUNCTION payment_request_detail(p payment_requests) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'uuid', p.id,
    'reference', p.reference,
    'request_type', p.request_type,
    'status', p.status,
    'amount', (p.amount / 100.0)::float8,
    'amount_captured', (p.amount_captured / 100.0)::float8,
    'amount_refunded', (p.amount_refunded / 100.0)::float8,
    'currency', p.currency,
    'guest_email', p.guest_email,
    'guest_first_name', p.guest_first_name,
    'guest_last_name', p.guest_last_name,
    'reservation_ref', p.reservation_ref,
    'reservation_data', p.reservation_data,
    'masked_pan', p.masked_pan,
    'card_expiry_month', p.card_expiry_month,
    'card_expiry_year', p.card_expiry_year,
    'order_cycle', CASE WHEN p.status IN ('CAPTURED', 'REFUSED', 'CANCELLED', 'EXPIRED', 'REFUNDED') THEN 'CLOSED' ELSE 'OPEN' END,
    'email_sent', p.email_sent,
    'created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'hold_expires_at', to_char(p.hold_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'link_expires_at', to_char(p.link_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'guarantee_failed_at', to_char(p.guarantee_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'guarantee_failures', p.guarantee_failures
  )
$$;

-- A refused hold is the event `payment_request.guarantee_failed`, not a plain
-- `payment_request.error`: its history row goes from AUTHORISED to ERROR and names the hold's
-- ledger row. The trigger is the one of 0032 with only the type changed; events already
-- written do not change.
CREATE OR REPLACE FUNCTION status_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ev AS (
    INSERT INTO events (tenant_id, payment_request_id, type, data)
    SELECT n.tenant_id, n.payment_request_id,
           'payment_request.' || CASE
             WHEN n.to_status = 'CAPTURED' AND n.from_status = 'CAPTURED'
                  AND EXISTS (SELECT 1 FROM money_ledger l WHERE l.id = n.ledger_id AND l.kind = 'refund')
             THEN 'partially_refunded'
             WHEN n.to_status = 'ERROR' AND n.from_status = 'AUTHORISED'
                  AND EXISTS (SELECT 1 FROM money_ledger l WHERE l.id = n.ledger_id AND l.kind = 'hold')
             THEN 'guarantee_failed'
             ELSE lower(n.to_status) END,
           CASE WHEN n.to_status = 'INCIDENT'
                THEN d.data || jsonb_build_object('incident', coalesce(n.detail, '{}'::jsonb))
                ELSE d.data END
      FROM new_rows n
      CROSS JOIN LATERAL (
        SELECT coalesce(
          (SELECT payment_request_detail(p) FROM payment_requests p WHERE p.id = n.payment_request_id),
          coalesce((SELECT e.data FROM events e
                     WHERE e.payment_request_id = n.payment_request_id ORDER BY e.id DESC LIMIT 1), '{}'::jsonb)
            || jsonb_build_object('uuid', n.payment_request_id, 'status', n.to_status,
                                  'previous_status', n.from_status)) AS data
      ) d
     ORDER BY n.id
    RETURNING id, tenant_id, payment_request_id, type
  )
  INSERT INTO webhook_deliveries (endpoint_id, event_id, payment_request_id)
  SELECT w.id, ev.id, ev.payment_request_id
    FROM ev JOIN webhook_endpoints w ON w.tenant_id = ev.tenant_id
   WHERE w.status = 'enabled' AND (cardinality(w.events) = 0 OR ev.type = ANY (w.events));
  RETURN NULL;
END
$$;

-- The sandbox, like a real provider, lets a card be registered again on an order whose card is
-- registered already: a guest replaces a card the bank refused a hold on, through the same
-- link. Only a second successful payment of an order is refused by its database; the same
-- form posted twice still registers once (the attempt's primary key).
ALTER TABLE sandbox_checkout_attempts ADD COLUMN registration boolean NOT NULL DEFAULT false;
DROP INDEX sandbox_checkout_attempts_one_success;
CREATE UNIQUE INDEX sandbox_checkout_attempts_one_success ON sandbox_checkout_attempts (order_id)
  WHERE succeeded AND NOT registration;
