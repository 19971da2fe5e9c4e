-- Which event a status change is now comes from code (src/events/event-types.ts), as the
-- detail every event carries does: the generator below writes payment_request_event_type(), and
-- the trigger calls it instead of its own CASE. New: a soft decline of a hold before the
-- check-in day (AUTHORISED to AUTHORISED, the hold's ledger row) is `payment_request.hold_declined`.
-- Events already written do not change.
-- payreq:generated payment_request_event_type sha256=7241fae6fe892c5f

CREATE OR REPLACE FUNCTION status_history_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ev AS (
    INSERT INTO events (tenant_id, payment_request_id, type, data)
    SELECT n.tenant_id, n.payment_request_id,
           payment_request_event_type(n.from_status, n.to_status, n.ledger_id),
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
