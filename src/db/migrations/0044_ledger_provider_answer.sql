-- A refusal is a state of its own: the provider said no, nothing moved, and that is final
-- (before, a failed row whose error began with "refused: "). Failed stays "it failed or was
-- not reached, nothing moved".
ALTER TABLE money_ledger DROP CONSTRAINT money_ledger_state_check;
ALTER TABLE money_ledger ADD CONSTRAINT money_ledger_state_check
  CHECK (state IN ('requested', 'succeeded', 'failed', 'refused', 'in_doubt'));
UPDATE money_ledger SET state = 'refused', error = substr(error, 10)
 WHERE state = 'failed' AND error LIKE 'refused: %';

-- What the provider said of the transaction the operation made or moved, whatever the outcome:
-- its id (a refused hold's or refund's transaction too, so no later verdict takes it for
-- another operation's), its status as the provider wrote it, and the reason of a refusal.
ALTER TABLE money_ledger ADD COLUMN answer_transaction_id text;
ALTER TABLE money_ledger ADD COLUMN provider_status text;
ALTER TABLE money_ledger ADD COLUMN decline_code text;

-- One give-back under way or done per incident: a failed or refused one frees the place.
DROP INDEX money_ledger_one_giveback;
CREATE UNIQUE INDEX money_ledger_one_giveback ON money_ledger (parent_id)
  WHERE incident IS NOT NULL AND kind IN ('refund', 'void') AND state NOT IN ('failed', 'refused');

-- Rows written before accounts were recorded (provider_account NULL) are given theirs by
-- reconcile, which asks each account the tenant has had which one shows the row's transaction
-- (never guessed): when it last asked, so a row no account shows waits a day before the next ask.
ALTER TABLE money_ledger ADD COLUMN account_asked_at timestamptz;
