-- When the hotel released a hold (AUTHORISED_TO_VALIDATE to CANCELLED, the one move the
-- transition table calls a release): on the request, so in its detail and every event. The
-- status stays CANCELLED, as the integration contract says; a PMS that polls tells a released
-- hold from a cancelled request by released_at. Set by the status change itself; the requests
-- released before are given the time of their release from their history.
ALTER TABLE payment_requests ADD COLUMN IF NOT EXISTS released_at timestamptz;
UPDATE payment_requests p SET released_at = h.created_at
  FROM (SELECT payment_request_id, max(created_at) AS created_at FROM status_history
         WHERE from_status = 'AUTHORISED_TO_VALIDATE' AND to_status = 'CANCELLED'
         GROUP BY payment_request_id) h
 WHERE h.payment_request_id = p.id AND p.status = 'CANCELLED' AND p.released_at IS NULL;
-- payreq:generated payment_request_detail sha256=6ce2ec3438f434cc
