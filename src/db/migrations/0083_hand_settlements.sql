-- An operation settled by hand keeps who settled it: a provider answer arriving later that
-- says otherwise is then recognised as contradicting a person's decision, and opens an
-- incident instead of being dropped like any answer to a row already settled.
ALTER TABLE money_ledger ADD COLUMN settled_by text;
