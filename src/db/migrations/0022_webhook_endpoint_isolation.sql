-- Webhook deliveries are claimed per endpoint, so a slow, hanging or unreachable endpoint
-- holds back only its own deliveries.
--
-- An endpoint in failure backs off on its own clock: it is not tried before `next_attempt_at`;
-- `failures` counts the failed attempts in a row (the wait doubles with each, up to an hour);
-- `failing_since` is when that run of failures began: 3 days of it disable the endpoint.
ALTER TABLE webhook_endpoints
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
  ADD COLUMN failing_since timestamptz;

-- A delivery being sent is leased until `leased_until` (NULL: nobody holds it). Apart from
-- next_attempt_at, so that the claim can count what each endpoint and tenant has in flight.
ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;

-- The leased rows: few at any time, counted by every claim.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id) WHERE leased_until IS NOT NULL;
-- Each endpoint's due deliveries, oldest first: the claim reads a few per endpoint. It replaces
-- the index of one queue for all endpoints.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';
DROP INDEX webhook_deliveries_due;
