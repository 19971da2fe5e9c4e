-- The back office's list across every hotel (a superuser's), its requests export and its totals
-- now read the search table's index of every hotel's requests by date (0153) and join each
-- page's requests by their id, as a search does. The same index on payment_requests (0012,
-- made partial in 0042) served nothing else: dropped, so a create and every status change of a
-- request write one index entry fewer.
DROP INDEX payment_requests_created;
