-- The expiry job's two indexes hold only the rows that can still expire. Before, a request whose
-- hold had ended (captured, released, expired) kept its entry in the hold index, and every
-- request whose link had ever ended kept its entry in the link index: the hourly expiry read all
-- of them to find none (on 200,000 requests, 35,100 entries and 12,684 heap pages for the holds,
-- 162,001 rows for the links, 0.5 to 0.7 s a run, growing with the history), and every status
-- change of such a request wrote an entry in both. The expiry's query names the same statuses
-- (from the transition table: a hold expires from AUTHORISED_TO_VALIDATE, a link from
-- NOT_INITIATED, PENDING and ERROR), so each index is read in its order and only for live rows.
-- The Today page's holds ending (AUTHORISED_TO_VALIDATE by tenant and end) reads the hold index too.
DROP INDEX IF EXISTS payment_requests_hold_expiry;
CREATE INDEX payment_requests_hold_expiry ON payment_requests (hold_expires_at, id)
  WHERE status = 'AUTHORISED_TO_VALIDATE';
DROP INDEX IF EXISTS payment_requests_link_expiry;
CREATE INDEX payment_requests_link_expiry ON payment_requests (link_expires_at, id)
  WHERE status IN ('NOT_INITIATED', 'PENDING', 'ERROR');
