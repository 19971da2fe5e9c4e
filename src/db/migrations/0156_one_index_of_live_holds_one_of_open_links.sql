-- Two indexes listed rows another index lists, in an order no query needs apart.
--
-- payment_requests_renewals_due, (hold_expires_at, id) on the AUTHORISED_TO_VALIDATE imprints,
-- and payment_requests_hold_expiry, the same key on the AUTHORISED_TO_VALIDATE requests (partial
-- since 0152): only an imprint reaches that status (a deposit is charged at once; the transition
-- table has no other way in), so both listed every live hold, and each hold placed or renewed
-- wrote an entry in both. The renewal run's batches name the status in their text and read
-- payment_requests_hold_expiry in the same order.
--
-- payment_requests_unpaid, (tenant_id, created_at) on the open links: the reminders were its one
-- query, and since 0152 they read payment_requests_link_expiry, which holds the same rows; every
-- create wrote an entry in it.
DROP INDEX payment_requests_renewals_due;
DROP INDEX payment_requests_unpaid;
