-- Money that reaches the bank (docs/payouts.md): the provider's remittances, imported from its
-- bank reconciliation report (Lyra's JRB), each line matched to the ledger row it pays out.
--
-- A remittance is one transfer to the hotel's bank account: the provider's number and date for
-- it, its currency, and its totals, which are those of its lines, recomputed by each import that
-- touches it. Amounts in minor units, signed as money to the hotel: gross = debits - credits,
-- fees = what the provider kept, net = gross - fees = what reached the bank. The same remittance
-- in another file (the next day's report, a weekly one over the daily ones) is the same row.
CREATE TABLE remittances (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider text NOT NULL,
  remittance_nb text NOT NULL,
  remittance_date date NOT NULL,
  currency text NOT NULL,
  gross bigint NOT NULL DEFAULT 0,
  fees bigint NOT NULL DEFAULT 0,
  net bigint NOT NULL DEFAULT 0,
  line_count integer NOT NULL DEFAULT 0,
  matched_count integer NOT NULL DEFAULT 0,
  -- The earliest payment its lines pay out (PAYMENT_DATE, else the remittance's date). From a
  -- hotel's earliest one on, money payreq moved that no remittance holds is "not paid out".
  first_payment_date date,
  -- The shop the report names (its TITRE record), as the last import that touched it read it.
  shop text,
  imported_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (net = gross - fees),
  UNIQUE (tenant_id, provider, remittance_nb, remittance_date, currency)
);
-- The Payouts page, `payreq settlements list` and the export: a hotel's remittances by date.
CREATE INDEX remittances_tenant_date ON remittances (tenant_id, remittance_date, id);

-- One remitted operation (a MATCHING record of the report): the provider's transaction (Lyra's
-- 6-digit TRANSACTION_ID, REST V4's legacyTransId) and order (ORDER_ID: payreq's request uuid),
-- a debit or a credit of `amount`, the fee the provider kept on it (negative: a commission given
-- back) and the net; then what it matched: the request and the ledger row, or why nothing
-- (unmatched_reason; expected_amount: payreq's amount when the two differ). `line_key` names the
-- operation within its remittance (a digest of what identifies it in any report: its payment
-- date, transaction, direction, operation number, order and amount; 16 bytes, a short index key),
-- so importing a file again, or one overlapping it, adds nothing.
CREATE TABLE remittance_lines (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  remittance_id bigint NOT NULL REFERENCES remittances (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL,
  line_key uuid NOT NULL,
  transaction_id text NOT NULL,
  order_id text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount bigint NOT NULL CHECK (amount >= 0),
  fee bigint NOT NULL,
  net bigint NOT NULL,
  currency text NOT NULL,
  payment_date date,
  operation_number text,
  payment_method text,
  -- The provider's own reconciliation status of the line (Lyra: MATCH_OK), as written.
  match_status text,
  payment_request_id uuid,
  -- No foreign key: ledger rows are never deleted, and a key is a check (a trigger and an index
  -- probe) for each of an import's lines.
  ledger_id bigint,
  unmatched_reason text CHECK (unmatched_reason IN ('unknown_order', 'unknown_transaction', 'direction_differs',
    'currency_differs', 'amount_differs', 'already_paid_out')),
  expected_amount bigint,
  -- The line of the file it was first read from.
  source_line integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  matched_at timestamptz,
  CHECK ((ledger_id IS NULL) <> (unmatched_reason IS NULL)),
  CHECK (net = (CASE direction WHEN 'debit' THEN amount ELSE -amount END) - fee),
  UNIQUE (remittance_id, line_key)
);
-- Whether a ledger row is paid out (held by a line): the matching gives each row to one line,
-- and "not paid out" looks each of a hotel's movements up here.
CREATE INDEX remittance_lines_ledger ON remittance_lines (ledger_id) WHERE ledger_id IS NOT NULL;
-- A request's payouts, for its page.
CREATE INDEX remittance_lines_request ON remittance_lines (payment_request_id) WHERE payment_request_id IS NOT NULL;
-- A remittance's lines (its page, the export) are found by the unique index's first column and
-- sorted there: one index fewer to write for each of the import's lines.

-- Matching reads an order's money by money_ledger_request (payment_request_id, id): an order has
-- a handful of rows, so a batch of a thousand lines is a thousand index ranges of a few rows, and
-- the transaction number is compared on them; no index of its own is worth its cost on every
-- ledger write.
