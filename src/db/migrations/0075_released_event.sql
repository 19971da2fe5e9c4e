-- A hold released when the guest arrived (AUTHORISED_TO_VALIDATE to CANCELLED, with the release's
-- ledger row) is the event `payment_request.released`, no longer `payment_request.cancelled`:
-- the request's status stays CANCELLED, but a PMS must not take the guest's arrival for a
-- cancelled booking. The function is written again from the code that names the events
-- (src/events/event-types.ts); events already written do not change.
-- payreq:generated payment_request_event_type sha256=88b43a473173cac6

-- An endpoint that subscribed to `payment_request.cancelled` was told of releases under that
-- name: it keeps hearing of them, under theirs.
UPDATE webhook_endpoints SET events = events || ARRAY['payment_request.released']
 WHERE 'payment_request.cancelled' = ANY (events) AND NOT 'payment_request.released' = ANY (events);
