-- A hotel's own Stripe account (docs/stripe.md): the API base, the mode its key says, and the
-- secrets (secret or restricted key, webhook signing secret) sealed like Lyra's. When payreq
-- created the webhook endpoint itself, its id is kept (webhook_endpoint_id), so `tenant show`
-- says so; NULL: the operator configured it in Stripe's dashboard. A Stripe account has no shop
-- id and no static URL.
ALTER TABLE provider_accounts DROP CONSTRAINT provider_accounts_provider_check;
ALTER TABLE provider_accounts DROP CONSTRAINT provider_accounts_check;
ALTER TABLE provider_accounts ADD COLUMN webhook_endpoint_id text;
ALTER TABLE provider_accounts ADD CONSTRAINT provider_accounts_provider_check
  CHECK (provider IN ('sandbox', 'lyra', 'stripe'));
ALTER TABLE provider_accounts ADD CONSTRAINT provider_accounts_check CHECK (
  (provider = 'lyra' AND shop_id IS NOT NULL AND api_url IS NOT NULL AND mode IS NOT NULL AND secrets_sealed IS NOT NULL
    AND webhook_endpoint_id IS NULL)
  OR (provider = 'stripe' AND shop_id IS NULL AND api_url IS NOT NULL AND static_url IS NULL AND mode IS NOT NULL
    AND secrets_sealed IS NOT NULL)
  OR (provider = 'sandbox' AND shop_id IS NULL AND api_url IS NULL AND static_url IS NULL AND mode IS NULL
      AND secrets_sealed IS NULL AND webhook_endpoint_id IS NULL)
);
ALTER TABLE provider_account_versions DROP CONSTRAINT provider_account_versions_provider_check;
ALTER TABLE provider_account_versions ADD COLUMN webhook_endpoint_id text;
ALTER TABLE provider_account_versions ADD CONSTRAINT provider_account_versions_provider_check
  CHECK (provider IN ('sandbox', 'lyra', 'stripe'));

-- The Stripe Customers payreq made for each payment request: Stripe lists PaymentIntents and
-- SetupIntents by customer (its search is eventually consistent), so an order's view at Stripe
-- starts from them. One per account version the request was paid on; no foreign key to the
-- request: a deleted request's money is still asked about.
CREATE TABLE stripe_customers (
  payment_request_id uuid NOT NULL,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  account_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (payment_request_id, customer_id)
);
CREATE INDEX stripe_customers_account ON stripe_customers (payment_request_id, account_version);

-- An event about a PaymentIntent that carries no metadata of payreq's (a dispute, an expired
-- charge) finds its request by the ledger rows that name it: Stripe's rows only.
CREATE INDEX money_ledger_stripe_transaction ON money_ledger (provider_transaction_id) WHERE provider = 'stripe';
