-- A REFUSED or EXPIRED request is final; the hotel's "Send a new link" makes a new request for the
-- same guest, amount and reservation. The two name each other: the new one `replaces` the old, the
-- old is `replaced_by` the new (at most one: the unique index makes a double click make one).
-- A deleted request unlinks the other (SET NULL); the indexes keep that delete one lookup each.
ALTER TABLE payment_requests
  ADD COLUMN IF NOT EXISTS replaces uuid REFERENCES payment_requests (id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS replaced_by uuid REFERENCES payment_requests (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX IF NOT EXISTS payment_requests_replaces ON payment_requests (replaces) WHERE replaces IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS payment_requests_replaced_by ON payment_requests (replaced_by)
  WHERE replaced_by IS NOT NULL;
-- payreq:generated payment_request_detail sha256=46272f8b385fae72
