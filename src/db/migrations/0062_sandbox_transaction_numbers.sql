-- The sandbox numbers its transactions as Lyra does (legacyTransId, vads_trans_id): six digits,
-- given when the transaction is made, so its remittance report (GET /sandbox/reports/jrb) names
-- each operation as a real one would and the same importer matches it. Random, as a shop's
-- numbers look to the hotel; a line is matched by its order and number together, never the
-- number alone, so two orders sharing a number are no confusion. Transactions made before get
-- theirs now.
ALTER TABLE sandbox_transactions
  ADD COLUMN legacy_trans_id text NOT NULL DEFAULT lpad(floor(random() * 900000)::int::text, 6, '0');
