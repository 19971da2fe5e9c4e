-- Each card form the sandbox hands out carries a single-use attempt id. An attempt that reaches
-- the bank is written here first, in the same transaction as its transaction row, so the
-- database itself refuses what a check-then-insert would let through when posts race:
-- the same attempt twice (the primary key), or a second successful checkout of one order
-- (the partial unique index). A refused or failed attempt does not count as a success, so a
-- guest may try again with a new attempt.
CREATE TABLE sandbox_checkout_attempts (
  attempt_id text PRIMARY KEY,
  order_id uuid NOT NULL,
  succeeded boolean NOT NULL,
  transaction_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sandbox_checkout_attempts_one_success ON sandbox_checkout_attempts (order_id) WHERE succeeded;
