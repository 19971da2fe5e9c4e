-- Fenced claims. A money command's claim on a request carries a token, new for each claim: the
-- ledger row of its operation records the same token, and is written only while the request
-- still holds it (the statement that writes the row checks it and renews the claim). Whatever
-- completes or gives back a claim (the outcome of the operation, a claim given back before the
-- call, the stale-claim reaper) does so only for the token it holds, so a holder whose claim was
-- freed and taken again changes nothing and never reaches the provider. NULL: no claim (or a
-- claim, or a ledger row, written before tokens existed).
ALTER TABLE payment_requests ADD COLUMN claim_token uuid;
ALTER TABLE money_ledger ADD COLUMN claim_token uuid;
