-- The back office's search text moves off payment_requests to a table of its own.
--
-- A request's row is updated many times after it is created (the guest pays, the daily job
-- holds, the hotel captures or refunds, the provider notifies). Every one of those updates
-- changes an indexed column (the status, updated_at), so it is never a HOT update and PostgreSQL
-- writes the new row version into every index of the table: the trigram search index (about 70
-- trigrams a request) and the three prefix btrees too, though reference, reservation, names and
-- e-mail are written at creation and then stay. Measured on the daily job (a fresh database per
-- run, 40,000 holds, alternated): those four indexes were 13 to 18 % of PostgreSQL's CPU a hold.
--
-- The text is kept lowered, as the searches compare it, with the request's tenant and creation
-- time: a search of one hotel then filters this table by itself. Triggers keep it in step with
-- payment_requests whoever writes (the service, a bulk insert, plain SQL): a row per request
-- inserted, the text again when one of its columns is set, the row gone with the request. A row
-- trigger on insert: with a statement trigger and its transition table, creates were 11 % slower.
-- Its key is the hotel's page order, not the request's id: a search's page is read in it (a
-- word most requests hold walks it and stops at the page's end), the triggers find a row by it
-- (they know the request's tenant and creation time), and an index on the random id would cost
-- every create a write at a random place in one more tree (measured: 4 KB more WAL a create).
CREATE TABLE payment_request_search (
  tenant_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  payment_request_id uuid NOT NULL,
  reference text NOT NULL,
  reservation_ref text NOT NULL,
  guest_email text NOT NULL,
  -- Reference, reservation, first and last name and e-mail, space-separated: the words search.
  words text NOT NULL,
  PRIMARY KEY (tenant_id, created_at, payment_request_id)
);

CREATE FUNCTION payreq_search_row_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_request_search
    (tenant_id, created_at, payment_request_id, reference, reservation_ref, guest_email, words)
  VALUES (NEW.tenant_id, NEW.created_at, NEW.id, lower(NEW.reference), lower(NEW.reservation_ref),
          lower(NEW.guest_email),
          lower(NEW.reference || ' ' || NEW.reservation_ref || ' ' || NEW.guest_first_name || ' ' ||
                NEW.guest_last_name || ' ' || NEW.guest_email));
  RETURN NULL;
END $$;

CREATE FUNCTION payreq_search_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payment_request_search
     SET tenant_id = NEW.tenant_id,
         created_at = NEW.created_at,
         reference = lower(NEW.reference),
         reservation_ref = lower(NEW.reservation_ref),
         guest_email = lower(NEW.guest_email),
         words = lower(NEW.reference || ' ' || NEW.reservation_ref || ' ' || NEW.guest_first_name || ' ' ||
                       NEW.guest_last_name || ' ' || NEW.guest_email)
   WHERE tenant_id = OLD.tenant_id AND created_at = OLD.created_at AND payment_request_id = OLD.id;
  RETURN NULL;
END $$;

CREATE FUNCTION payreq_search_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM payment_request_search s USING removed r
   WHERE s.tenant_id = r.tenant_id AND s.created_at = r.created_at AND s.payment_request_id = r.id;
  RETURN NULL;
END $$;

CREATE TRIGGER payment_requests_search_added AFTER INSERT ON payment_requests
  FOR EACH ROW EXECUTE FUNCTION payreq_search_row_added();
-- Only an UPDATE that sets one of the searched columns fires it: the status changes do not.
CREATE TRIGGER payment_requests_search_changed
  AFTER UPDATE OF tenant_id, created_at, reference, reservation_ref, guest_first_name, guest_last_name, guest_email
  ON payment_requests
  FOR EACH ROW EXECUTE FUNCTION payreq_search_row_changed();
CREATE TRIGGER payment_requests_search_removed AFTER DELETE ON payment_requests
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION payreq_search_rows_removed();

INSERT INTO payment_request_search
  (tenant_id, created_at, payment_request_id, reference, reservation_ref, guest_email, words)
SELECT tenant_id, created_at, id, lower(reference), lower(reservation_ref), lower(guest_email),
       lower(reference || ' ' || reservation_ref || ' ' || guest_first_name || ' ' || guest_last_name || ' ' || guest_email)
  FROM payment_requests;

-- The same indexes as before, on the kept text: a prefix is a range in a btree
-- (text_pattern_ops, whatever the collation), a fragment is found through its trigrams.
CREATE INDEX payment_request_search_reference ON payment_request_search (reference text_pattern_ops);
CREATE INDEX payment_request_search_reservation ON payment_request_search (reservation_ref text_pattern_ops);
CREATE INDEX payment_request_search_email ON payment_request_search (guest_email text_pattern_ops);
CREATE INDEX payment_request_search_words ON payment_request_search USING gin (words gin_trgm_ops);
-- Every hotel's requests in page order (a superuser's search); the key above is one hotel's.
CREATE INDEX payment_request_search_created ON payment_request_search (created_at, payment_request_id);

DROP INDEX payment_requests_search;
DROP INDEX payment_requests_reference_prefix;
DROP INDEX payment_requests_reservation_prefix;
DROP INDEX payment_requests_email_prefix;

-- The planner's choice of a search's plan (through the text's indexes, or walking a hotel's
-- requests newest first) reads this table's statistics: they exist from the start, not from
-- autovacuum's (or, on PGlite, the nightly analyze_tables') first pass.
ANALYZE payment_request_search;
