-- reconcile_claims checks the books of every request touched in its window (the last day):
-- the window's requests are listed when it opens, then checked a page at a time in request id
-- order, each page struck off the list once checked. A run that stops before the end (its page
-- cap, or a process that died) leaves the rest listed, and the next run carries on from there.
-- One window at a time; the run checking it holds a lease, renewed at each page.
CREATE TABLE reconcile_check_window (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  since timestamptz NOT NULL,
  until timestamptz NOT NULL,
  -- Requests touched in [since, until): the length of the list when the window opened.
  touched integer NOT NULL,
  lease uuid NOT NULL,
  leased_until timestamptz NOT NULL
);
-- The window's requests not checked yet.
CREATE TABLE reconcile_check_queue (
  payment_request_id uuid PRIMARY KEY
);
-- A window lists the requests whose ledger rows changed in it: a range of this index, read
-- without the table, instead of a scan of the whole ledger.
CREATE INDEX money_ledger_touched ON money_ledger (updated_at, payment_request_id);
