-- TRUNCATE fires no DELETE trigger: a payment_requests emptied that way (by an operator, by a
-- restore script) empties the search table with it, so no search finds a request that is gone.
CREATE FUNCTION payreq_search_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE payment_request_search;
  RETURN NULL;
END $$;

CREATE TRIGGER payment_requests_search_truncated AFTER TRUNCATE ON payment_requests
  FOR EACH STATEMENT EXECUTE FUNCTION payreq_search_truncated();
