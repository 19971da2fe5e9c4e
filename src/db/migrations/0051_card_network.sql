-- The network that carried a card's registration (visa, mastercard, cb, maestro, amex, other):
-- a merchant-initiated hold lives by its rule (providers/hold-validity.ts). NULL: not told (a
-- card registered before this column): the shortest rule applies.
ALTER TABLE payment_requests ADD COLUMN card_network text;
