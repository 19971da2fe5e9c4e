-- A manager adds staff by e-mail only: the address gets a link that works once and expires; the
-- invitee chooses their own username and password (or, already a user, accepts signed in as
-- themselves). Nobody chooses another's password, and the manager learns nothing of who the
-- address or any name belongs to elsewhere. Only the link's SHA-256 is kept here (a copy of
-- the table opens nothing); the link itself travels in the e-mail's outbox payload.
CREATE TABLE team_invitation_links (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'frontdesk', 'manager')),
  token_hash text NOT NULL UNIQUE,
  invited_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  -- Set once the link was used (the account made, or the role accepted): it never works again.
  used_at timestamptz,
  used_by uuid REFERENCES admin_users (id) ON DELETE SET NULL,
  -- Usernames refused on this link (taken): past a few, the link is spent, so it cannot be
  -- used to find out which names exist.
  names_refused integer NOT NULL DEFAULT 0
);
CREATE INDEX team_invitation_links_open ON team_invitation_links (tenant_id, email) WHERE used_at IS NULL;

ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check
  CHECK (kind IN ('payment_link', 'deposit_confirmation', 'card_registered',
                  'capture_notice', 'release_notice', 'refund_notice',
                  'guarantee_failed_guest', 'guarantee_failed_hotel', 'hold_declined_hotel',
                  'payment_reminder', 'daily_digest', 'team_invitation'));
