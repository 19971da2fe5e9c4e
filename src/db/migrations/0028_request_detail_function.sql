-- The detail of a payment request is defined once, in src/events/request-detail.ts: the API
-- shows it and every event carries it as `data`. The events trigger builds it in SQL (one
-- statement writes all the events of a statement, the daily job's thousands included), so the
-- detail's SQL is written from that definition: the function below is its output, word for
-- word (test/events/request-detail.test.ts checks it; a change of the detail needs a new
-- migration that replaces this function). The terminal statuses of order_cycle come from the
-- domain's list.
--
-- The trigger function is the one of 0016 with the detail taken from the function. The function is
-- one SQL expression declared STABLE: PostgreSQL inlines it into the trigger's statement, so
-- the trigger does the same work per row as before. Events already written do not change.
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
    'link_expires_at', to_char(p.link_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )
$$;

CREATE OR REPLACE FUNCTION status_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ev AS (
    INSERT INTO events (tenant_id, payment_request_id, type, data)
    SELECT n.tenant_id, n.payment_request_id, 'payment_request.' || lower(n.to_status),
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
