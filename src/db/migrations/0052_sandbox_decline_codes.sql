-- The sandbox's bank says why it refused a hold, as a real provider does: a refused hold is now
-- a refused transaction of its order, with its reason (payreq's decline reasons) as its code.
ALTER TABLE sandbox_transactions ADD COLUMN decline_code text;
