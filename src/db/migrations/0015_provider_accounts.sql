-- Each hotel is its own merchant: the provider and account it takes payments with. No row: the
-- sandbox in development and tests; in production, no payments until a real account is set.
-- The secrets (password, public key, HMAC key) are one JSON object sealed with the service's
-- secret box, bound to the tenant id, so a sealed value copied onto another tenant does not open.
CREATE TABLE provider_accounts (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('sandbox', 'lyra')),
  shop_id text,
  api_url text,
  static_url text,
  mode text CHECK (mode IN ('TEST', 'PRODUCTION')),
  secrets_sealed text,
  -- Bumped on every change: a process caches the provider built from a row by this version.
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A real account is complete; the sandbox carries none of it.
  CHECK (
    (provider = 'lyra' AND shop_id IS NOT NULL AND api_url IS NOT NULL AND mode IS NOT NULL AND secrets_sealed IS NOT NULL)
    OR (provider = 'sandbox' AND shop_id IS NULL AND api_url IS NULL AND static_url IS NULL AND mode IS NULL
        AND secrets_sealed IS NULL)
  )
);
