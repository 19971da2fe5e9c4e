-- Each money movement has its own event. A partial refund keeps the request CAPTURED, so its
-- history row goes from CAPTURED to CAPTURED and the event type, taken from the new status, was
-- a second `payment_request.captured`: a PMS that posts "captured" to the guest's folio posted
-- it twice. Such a row (the one a refund's ledger row made) is now the event
-- `payment_request.partially_refunded`; every other event keeps its type. The trigger is the
-- one of 0028 with only the type changed; events already written do not change.
CREATE OR REPLACE FUNCTION status_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ev AS (
    INSERT INTO events (tenant_id, payment_request_id, type, data)
    SELECT n.tenant_id, n.payment_request_id,
           'payment_request.' || CASE
             WHEN n.to_status = 'CAPTURED' AND n.from_status = 'CAPTURED'
                  AND EXISTS (SELECT 1 FROM money_ledger l WHERE l.id = n.ledger_id AND l.kind = 'refund')
             THEN 'partially_refunded'
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
