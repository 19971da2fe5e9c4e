-- The back office's search, for text that names one request (a reference, a reservation
-- number, an e-mail address): matched from its start, so the btree ranges over the prefix.
-- The trigram index (0012) still answers words, but a needle made of trigrams every row holds
-- ("imp", "202", "gue", "@ex") reads each of their posting lists: 100 ms and more at a million
-- rows, where a range in one of these takes well under a millisecond. text_pattern_ops: the
-- range works whatever the database's collation.
CREATE INDEX payment_requests_reference_prefix ON payment_requests (lower(reference) text_pattern_ops);
CREATE INDEX payment_requests_reservation_prefix ON payment_requests (lower(reservation_ref) text_pattern_ops);
CREATE INDEX payment_requests_email_prefix ON payment_requests (lower(guest_email) text_pattern_ops);
