-- Why the bank declined a request's last hold, and the provider's code for it: on the request
-- (cleared by a hold placed or a new card), and so in its detail, in every event (notably
-- payment_request.hold_declined and payment_request.guarantee_failed). The detail's SQL function
-- is written again from the code that defines the detail (src/events/request-detail.ts).
ALTER TABLE payment_requests ADD COLUMN hold_decline_reason text, ADD COLUMN hold_decline_code text;
-- payreq:generated payment_request_detail sha256=7fd2ce99ad614e82
