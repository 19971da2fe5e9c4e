import type { TenantRole } from './admin-users-repository.ts';
import type { Queryable } from './database.ts';

export interface InvitationRow {
  tenant_id: string;
  tenant_name: string;
  role: TenantRole;
  invited_by: string | null;
  created_at: Date;
}

/** Invitations to work at a hotel: written by its manager, answered by the invited user alone. */
export function teamInvitationsRepository(db: Queryable) {
  return {
    /**
     * Invites the user named to the tenant with `role`, unless they are a superuser, already
     * hold a role there, or do not exist: then nothing is written. The caller's answer must not
     * tell these apart (a name elsewhere and a name nowhere look alike).
     */
    async invite(username: string, tenantId: string, role: TenantRole, invitedBy: string | null): Promise<void> {
      await db.query(
        `INSERT INTO team_invitations (tenant_id, user_id, role, invited_by)
         SELECT $2, u.id, $3, $4 FROM admin_users u
          WHERE u.username = $1 AND NOT u.superuser
            AND NOT EXISTS (SELECT 1 FROM admin_user_roles r WHERE r.user_id = u.id AND r.tenant_id = $2)
         ON CONFLICT (user_id, tenant_id) DO UPDATE SET role = EXCLUDED.role, invited_by = EXCLUDED.invited_by,
           created_at = now()`,
        [username, tenantId, role, invitedBy],
      );
    },

    async forUser(userId: string): Promise<InvitationRow[]> {
      const r = await db.query<InvitationRow>(
        `SELECT i.tenant_id::text, t.name AS tenant_name, i.role, i.invited_by, i.created_at
           FROM team_invitations i JOIN tenants t ON t.id = i.tenant_id
          WHERE i.user_id = $1 ORDER BY i.created_at`,
        [userId],
      );
      return r.rows;
    },

    /**
     * The user's answer: accepted, the role is written and the invitation gone, in one
     * statement; declined, the invitation gone. Undefined: there was no such invitation.
     */
    async answer(userId: string, tenantId: string, accept: boolean): Promise<TenantRole | undefined> {
      const r = await db.query<{ role: TenantRole }>(
        `WITH gone AS (
           DELETE FROM team_invitations WHERE user_id = $1 AND tenant_id = $2 RETURNING role
         ), granted AS (
           INSERT INTO admin_user_roles (user_id, tenant_id, role)
           SELECT $1, $2, role FROM gone WHERE $3::boolean
           ON CONFLICT (user_id, tenant_id) DO NOTHING
           RETURNING 1
         )
         SELECT role FROM gone`,
        [userId, tenantId, accept],
      );
      return r.rows[0]?.role;
    },

    /** The user's home hotel, one they hold a role on (or none: the hotel of their oldest role). */
    async setHome(userId: string, tenantId: string | null): Promise<boolean> {
      const r = await db.query(
        `UPDATE admin_users SET home_tenant_id = $2 WHERE id = $1
            AND ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM admin_user_roles r WHERE r.user_id = $1 AND r.tenant_id = $2))`,
        [userId, tenantId],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
export type TeamInvitationsRepository = ReturnType<typeof teamInvitationsRepository>;
