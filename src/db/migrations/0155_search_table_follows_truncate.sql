-- TRUNCATE fires no DELETE trigger: a payment_requests emptied that way (by an operator, by a
-- restore script) empties the search table with it, so no search finds a request that is gone.
-- A DELETE, not a TRUNCATE: a TRUNCATE that names both tables has the search table open when
-- this runs, and PostgreSQL refuses to truncate a table in use by the statement.
CREATE FUNCTION payreq_search_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM payment_request_search;
  RETURN NULL;
END $$;

CREATE TRIGGER payment_requests_search_truncated AFTER TRUNCATE ON payment_requests
  FOR EACH STATEMENT EXECUTE FUNCTION payreq_search_truncated();
