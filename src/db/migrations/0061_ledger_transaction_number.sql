-- The provider's number of the transaction a ledger row made or moved: Lyra's legacyTransId
-- (REST V4 transactionDetails.cardDetails.legacyTransId, the form API's vads_trans_id), six
-- digits, unique within a shop and a day only; the sandbox gives its transactions one too. It
-- is how the provider's bank reconciliation report names an operation (its TRANSACTION_ID), so
-- a remittance line is matched by its order and this number (docs/payouts.md). Kept from now
-- on; rows written before have none and match by order, direction and amount.
ALTER TABLE money_ledger ADD COLUMN legacy_trans_id text;
