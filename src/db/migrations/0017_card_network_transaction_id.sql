-- The card network's id of an IMPRINT's card registration (Lyra's
-- initialIssuerTransactionIdentifier). The networks ask that each merchant-initiated payment on
-- a stored card (the daily job's hold) name the transaction in which the cardholder agreed to
-- it; the provider hands it over with the registration's notification.
ALTER TABLE payment_requests ADD COLUMN card_network_transaction_id text;
