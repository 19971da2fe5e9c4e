-- An Idempotency-Key stays bound to its first request's body, even when that request ended in
-- a state a retry must be able to run again (a 5xx, an operation in doubt, a 409): such a key
-- is "released" rather than deleted, so only the same request takes it over; another body under
-- the same key is refused (422), naming the request the key belongs to.
ALTER TABLE idempotency_keys ADD COLUMN released boolean NOT NULL DEFAULT false;
ALTER TABLE idempotency_keys ADD COLUMN request_line text;
