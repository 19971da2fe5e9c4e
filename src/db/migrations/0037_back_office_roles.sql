-- Roles in the back office: a user holds one role per tenant (a hotel group: several tenants),
-- or is a superuser, who sees every tenant. Which route needs which role is decided in the
-- application (src/control/route-roles.ts), not here.

-- viewer reads; frontdesk also resends, cancels, captures, releases; manager also refunds and
-- runs the tenant (keys, settings, webhooks, its users). One row per user and tenant.
CREATE TABLE admin_user_roles (
  user_id uuid NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('viewer', 'frontdesk', 'manager')),
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, tenant_id)
);
-- The Team page lists a tenant's users.
CREATE INDEX admin_user_roles_tenant ON admin_user_roles (tenant_id);

-- Superuser is said, not inferred: a user whose last role is removed must not become one.
ALTER TABLE admin_users ADD COLUMN superuser boolean NOT NULL DEFAULT false;
UPDATE admin_users SET superuser = true WHERE tenant_id IS NULL;

-- Every user of one tenant becomes that tenant's manager: nobody loses anything they could do.
INSERT INTO admin_user_roles (user_id, tenant_id, role)
SELECT id, tenant_id, 'manager' FROM admin_users WHERE tenant_id IS NOT NULL;

ALTER TABLE admin_users DROP COLUMN tenant_id;
