-- Secret rotation: the secret that was replaced keeps signing, beside the new one, until
-- `previous_secret_expires_at` (24 hours), so a receiver can be given the new secret at leisure.
-- Sealed like the current one, bound to the endpoint id.
ALTER TABLE webhook_endpoints
  ADD COLUMN previous_secret_sealed text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD CONSTRAINT webhook_endpoints_previous_secret
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));

-- The delivery log, one row per attempt (the delivery row keeps only the last answer): when,
-- which attempt, the HTTP status or the error, and how long it took. Goes with its delivery
-- (delivered rows are purged after 30 days, an endpoint's with the endpoint).
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  -- Its delivery's endpoint, so the endpoints' list finds each one's last attempt by index.
  endpoint_id uuid NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  status_code integer,
  error text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);
-- The log page lists an endpoint's deliveries newest first; the endpoints' list counts the
-- failed ones (few rows enter that state).
CREATE INDEX webhook_deliveries_endpoint_log ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_endpoint_failed ON webhook_deliveries (endpoint_id) WHERE status = 'failed';
