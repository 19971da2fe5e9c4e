-- The back office at /control/: its users, their sessions, and the audit of what they did.

-- A user with no tenant is a superuser (sees every tenant); with one, sees only that tenant.
-- Usernames are stored lower-cased, so "Alice" and "alice" are one account.
CREATE TABLE admin_users (
  id uuid PRIMARY KEY,
  username text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9][a-z0-9._@-]{0,63}$'),
  -- scrypt$N$r$p$salt$hash (base64): the parameters travel with the hash, so they can grow.
  password_hash text NOT NULL,
  tenant_id uuid REFERENCES tenants (id) ON DELETE CASCADE,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);

-- Sessions live server-side: signing out, disabling a user or changing a password ends them
-- at once. The id is kept only as a SHA-256 hash: a copy of the table opens no session.
CREATE TABLE admin_sessions (
  id_hash text PRIMARY KEY,
  data jsonb NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX admin_sessions_expiry ON admin_sessions (expires_at);

-- Every back-office action: who, when, what, from where, and how it ended. Never updated.
CREATE TABLE admin_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- As typed for a failed sign-in (the account may not exist); the user's name otherwise.
  username text,
  tenant_id uuid,
  ip text,
  action text NOT NULL,
  target text,
  payment_request_id uuid,
  outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed', 'in_doubt')),
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_at ON admin_audit (at DESC, id DESC);
CREATE INDEX admin_audit_tenant_at ON admin_audit (tenant_id, at DESC, id DESC);
CREATE INDEX admin_audit_request ON admin_audit (payment_request_id, at) WHERE payment_request_id IS NOT NULL;
