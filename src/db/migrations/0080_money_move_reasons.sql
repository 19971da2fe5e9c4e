-- Why the hotel captured or refunded money: a reason of a closed list (src/domain/money-reasons.ts)
-- and a free note, both optional. Each money move keeps its own on its ledger row (an outcome
-- recorded later, by a late answer or reconcile, still has it); the request keeps its last
-- capture's and its last refund's, so its detail says them, and every event with it (notably
-- payment_request.captured, .partially_refunded and .refunded). No list in the database: the
-- code checks it, as for the decline reasons. The detail's SQL function is written again from
-- the code that defines the detail (src/events/request-detail.ts).
ALTER TABLE money_ledger ADD COLUMN reason text, ADD COLUMN reason_note text;
ALTER TABLE payment_requests
  ADD COLUMN capture_reason text, ADD COLUMN capture_note text,
  ADD COLUMN refund_reason text, ADD COLUMN refund_note text;
-- payreq:generated payment_request_detail sha256=c37ab50c262f99cb
