-- Two-factor sign-in (TOTP) for the back office, and sessions a user can see and end.

-- A tenant can require every one of its users to sign in with a second factor.
ALTER TABLE tenants ADD COLUMN require_2fa boolean NOT NULL DEFAULT false;

-- A user's TOTP secret, sealed with SECRET_KEY (bound to the user id, so a copy on another row
-- does not open; `payreq secrets reseal` walks this column). confirmed_at NULL: enrolment begun,
-- not yet confirmed with a code, so the sign-in does not ask for one. last_used_step: the
-- highest 30-second step a code was accepted for; a code of that step or an earlier one is
-- refused, so each code signs in once.
CREATE TABLE admin_two_factor (
  user_id uuid PRIMARY KEY REFERENCES admin_users (id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  confirmed_at timestamptz,
  last_used_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use recovery codes: only their SHA-256 hash (they are random, 80 bits each) and the
-- moment each was used. A new set replaces the old one whole.
CREATE TABLE admin_recovery_codes (
  user_id uuid NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A user's sessions are listed (their sessions page) and ended together (a new password, a
-- reset of the second factor, a superuser's "end sessions"): found by the user id they hold.
CREATE INDEX admin_sessions_user ON admin_sessions ((data ->> 'userId'));
