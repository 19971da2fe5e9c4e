-- Every account a tenant has had, by version: a hotel that switches account (TEST to PRODUCTION
-- at go-live, or another shop) keeps its old transactions in the old account, and only the old
-- account can still be asked about them. provider_accounts keeps the current one; each change
-- writes its version here too, in the same statement. The secrets stay sealed, bound to the
-- tenant id as in provider_accounts (and resealed with them on a key rotation).
CREATE TABLE provider_account_versions (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  version integer NOT NULL,
  provider text NOT NULL CHECK (provider IN ('sandbox', 'lyra')),
  shop_id text,
  api_url text,
  static_url text,
  mode text CHECK (mode IN ('TEST', 'PRODUCTION')),
  secrets_sealed text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, version)
);
INSERT INTO provider_account_versions (tenant_id, version, provider, shop_id, api_url, static_url, mode,
  secrets_sealed, created_at)
SELECT tenant_id, version, provider, shop_id, api_url, static_url, mode, secrets_sealed, updated_at
  FROM provider_accounts;

-- The account (its version in provider_account_versions) each ledger row's call went to, or
-- its movement was reported by: reconcile asks that account, never simply the current one.
-- NULL: the tenant had no account row (the sandbox of a development instance), or the row was
-- written before this column existed; such a row is read with the tenant's current account, as
-- before (no backfill: history starts here, so the current account is all that is known, and
-- the ledger is not rewritten).
ALTER TABLE money_ledger ADD COLUMN provider_account integer;
