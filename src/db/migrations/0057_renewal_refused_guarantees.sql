-- A renewal the bank refused fails the guarantee while the old hold lives on: such a request is
-- AUTHORISED_TO_VALIDATE with its refusal's reason, and shows with the failed guarantees (the
-- Today page, the digest, the requests filter) until a new card replaces it. The partial index
-- of failed guarantees holds these rows too.
DROP INDEX payment_requests_failed_guarantees;
CREATE INDEX payment_requests_failed_guarantees ON payment_requests (tenant_id, guarantee_failed_at DESC, id)
  WHERE guarantee_failed_at IS NOT NULL
    AND (status = 'ERROR' OR (status = 'AUTHORISED_TO_VALIDATE' AND hold_decline_reason IS NOT NULL));

-- A new card the guest gave after a refused renewal: the next renewal run holds it at once and
-- releases the old hold (cleared when a hold is placed).
ALTER TABLE payment_requests ADD COLUMN renew_hold boolean NOT NULL DEFAULT false;
CREATE INDEX payment_requests_renew_now ON payment_requests (id) WHERE renew_hold;
