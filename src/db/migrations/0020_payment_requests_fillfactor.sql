-- A payment request is updated several times in its life (the guest opens the link, the
-- provider's notification, the daily job's claim and hold, a capture or a release). An update
-- that changes no indexed column and finds room on its own page is a HOT update: no new entry
-- in any of the table's indexes (the trigram search index included). Leaving 15% of each page
-- free gives the next version of a row that room; the claim of the daily job is such an update.
-- Rows already written keep their pages as they are until they are rewritten.
ALTER TABLE payment_requests SET (fillfactor = 85);
