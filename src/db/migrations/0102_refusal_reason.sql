-- Why the bank refused the guest's card when that refusal made the request REFUSED (payreq's
-- closed list of decline reasons, as for holds), and the provider's code for it: on the request,
-- so in its detail and every event, and on the back office's page. Set by the status change.
ALTER TABLE payment_requests ADD COLUMN IF NOT EXISTS decline_reason text, ADD COLUMN IF NOT EXISTS decline_code text;
-- payreq:generated payment_request_detail sha256=40bfafb6baf4d862
