-- Staff stay in their hotel: a manager no longer gives a role to a user of another hotel; the
-- user is invited, and the role is theirs once they accept. One invitation per user and hotel.
CREATE TABLE team_invitations (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('viewer', 'frontdesk', 'manager')),
  invited_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, tenant_id)
);

-- The hotel a user lands in after sign-in (and whose audit files their sign-ins): theirs to
-- choose; NULL: the hotel of their oldest role. A role given or accepted never changes it.
ALTER TABLE admin_users ADD COLUMN home_tenant_id uuid REFERENCES tenants (id) ON DELETE SET NULL;
