import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';

export interface AdminUserRow {
  id: string;
  username: string;
  password_hash: string;
  /** Sees every tenant; holds no roles. */
  superuser: boolean;
  disabled_at: Date | null;
  created_at: Date;
  password_changed_at: Date;
}

const COLUMNS = 'id, username, password_hash, superuser, disabled_at, created_at, password_changed_at';

/** What a user may do on one tenant, least first (a superuser sees every tenant, holds none). */
export const TENANT_ROLES = ['viewer', 'frontdesk', 'manager'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];

/** A user's role on one tenant. */
export interface RoleGrant {
  tenantId: string;
  role: TenantRole;
}

/** A role row as pages and the command line show it. */
export interface RoleRow {
  user_id: string;
  username: string;
  tenant_id: string;
  tenant_name: string;
  role: TenantRole;
  disabled_at: Date | null;
  granted_at: Date;
}

/** A user as every back-office request checks them: the row, and where they stand on two factors. */
export interface SessionUserRow extends AdminUserRow {
  /** A confirmed second factor (TOTP). */
  two_factor_on: boolean;
  /** One of their tenants requires a second factor of every user (a superuser has no tenant: false). */
  tenant_requires_2fa: boolean;
  /** Their roles, by tenant name (empty for a superuser), each with when it was given. */
  roles: { tenant_id: string; tenant_name: string; role: TenantRole; granted_at: string }[];
  /** The hotel they chose to land in after sign-in, or null: the hotel of their oldest role. */
  home_tenant_id: string | null;
}

export function adminUsersRepository(db: Queryable) {
  return {
    /**
     * undefined when the username is taken (unique index: two creates, one winner). With no
     * tenant and no grants, a superuser; `tenantId` (with `role`, manager by default) is one
     * grant, as before roles existed. The user and their roles are written in one statement.
     */
    async insert(u: {
      username: string;
      passwordHash: string;
      tenantId?: string | null;
      role?: TenantRole;
      grants?: readonly RoleGrant[];
    }) {
      const grants = [
        ...(u.grants ?? []),
        ...(u.tenantId ? [{ tenantId: u.tenantId, role: u.role ?? 'manager' }] : []),
      ];
      const r = await db.query<AdminUserRow>(
        `WITH u AS (
           INSERT INTO admin_users (id, username, password_hash, superuser) VALUES ($1, $2, $3, $4)
           ON CONFLICT (username) DO NOTHING RETURNING ${COLUMNS}
         ), r AS (
           INSERT INTO admin_user_roles (user_id, tenant_id, role)
           SELECT u.id, g.tenant_id, g.role FROM u, unnest($5::uuid[], $6::text[]) AS g (tenant_id, role)
         )
         SELECT ${COLUMNS} FROM u`,
        [
          randomUUID(),
          u.username,
          u.passwordHash,
          grants.length === 0,
          grants.map((g) => g.tenantId),
          grants.map((g) => g.role),
        ],
      );
      return r.rows[0];
    },
    async findByUsername(username: string): Promise<AdminUserRow | undefined> {
      const r = await db.query<AdminUserRow>(`SELECT ${COLUMNS} FROM admin_users WHERE username = $1`, [username]);
      return r.rows[0];
    },
    async find(id: string): Promise<AdminUserRow | undefined> {
      const r = await db.query<AdminUserRow>(`SELECT ${COLUMNS} FROM admin_users WHERE id = $1`, [id]);
      return r.rows[0];
    },
    async findForSession(id: string): Promise<SessionUserRow | undefined> {
      // One query on every back-office request: the user, their second factor, their roles.
      const r = await db.query<SessionUserRow>(
        `SELECT ${COLUMNS.split(', ')
          .map((c) => `u.${c}`)
          .join(', ')},
                tf.confirmed_at IS NOT NULL AS two_factor_on,
                coalesce(bool_or(t.require_2fa), false) AS tenant_requires_2fa,
                coalesce(json_agg(json_build_object('tenant_id', t.id, 'tenant_name', t.name, 'role', r.role,
                                                    'granted_at', r.granted_at)
                                  ORDER BY t.name, t.id) FILTER (WHERE t.id IS NOT NULL), '[]') AS roles,
                u.home_tenant_id::text AS home_tenant_id
           FROM admin_users u
           LEFT JOIN admin_two_factor tf ON tf.user_id = u.id
           LEFT JOIN admin_user_roles r ON r.user_id = u.id
           LEFT JOIN tenants t ON t.id = r.tenant_id
          WHERE u.id = $1
          GROUP BY u.id, tf.confirmed_at`,
        [id],
      );
      return r.rows[0];
    },
    /** Users with a role on `tenantId` (every user when undefined), by username. */
    async list(tenantId?: string): Promise<AdminUserRow[]> {
      const r = await db.query<AdminUserRow>(
        `SELECT ${COLUMNS} FROM admin_users u
          WHERE $1::uuid IS NULL OR EXISTS (SELECT 1 FROM admin_user_roles r WHERE r.user_id = u.id AND r.tenant_id = $1)
          ORDER BY username`,
        [tenantId ?? null],
      );
      return r.rows;
    },
    /** Roles on one tenant, or of one user, or all: with the user's and the tenant's names. */
    async roles(filter: { tenantId?: string; userId?: string }): Promise<RoleRow[]> {
      const r = await db.query<RoleRow>(
        `SELECT r.user_id, u.username, r.tenant_id, t.name AS tenant_name, r.role, u.disabled_at, r.granted_at
           FROM admin_user_roles r JOIN admin_users u ON u.id = r.user_id JOIN tenants t ON t.id = r.tenant_id
          WHERE ($1::uuid IS NULL OR r.tenant_id = $1) AND ($2::uuid IS NULL OR r.user_id = $2)
          ORDER BY u.username, t.name`,
        [filter.tenantId ?? null, filter.userId ?? null],
      );
      return r.rows;
    },
    /**
     * Sets a user's role on a tenant (`null` removes it). `before`: the role they had, or null.
     * `keepLastManager`: refused (`last_manager`, nothing changed) when it would take the tenant's
     * last enabled manager away; the tenant's manager rows are locked first, so two managers
     * stepping down at once cannot both pass.
     */
    async setRole(
      userId: string,
      tenantId: string,
      role: TenantRole | null,
      opts: { keepLastManager?: boolean } = {},
    ): Promise<{ before: TenantRole | null; outcome: 'ok' | 'last_manager' }> {
      const r = await db.query<{ before: TenantRole | null; blocked: boolean }>(
        `WITH managers AS (
           SELECT r.user_id FROM admin_user_roles r JOIN admin_users u ON u.id = r.user_id
            WHERE r.tenant_id = $2 AND r.role = 'manager' AND u.disabled_at IS NULL FOR UPDATE OF r
         ), blocked AS (
           SELECT $4::boolean AND $3::text IS DISTINCT FROM 'manager'
                  AND EXISTS (SELECT 1 FROM managers WHERE user_id = $1)
                  AND NOT EXISTS (SELECT 1 FROM managers WHERE user_id <> $1) AS b
         ), before AS (
           SELECT role FROM admin_user_roles WHERE user_id = $1 AND tenant_id = $2
         ), put AS (
           INSERT INTO admin_user_roles (user_id, tenant_id, role)
           SELECT $1, $2, $3 WHERE $3::text IS NOT NULL AND NOT (SELECT b FROM blocked)
           ON CONFLICT (user_id, tenant_id) DO UPDATE SET role = excluded.role
           RETURNING 1
         ), removed AS (
           DELETE FROM admin_user_roles WHERE user_id = $1 AND tenant_id = $2 AND $3::text IS NULL
              AND NOT (SELECT b FROM blocked)
           RETURNING 1
         )
         SELECT (SELECT role FROM before) AS before, (SELECT b FROM blocked) AS blocked,
                (SELECT count(*) FROM put) + (SELECT count(*) FROM removed) AS changed`,
        [userId, tenantId, role, opts.keepLastManager === true],
      );
      const row = r.rows[0];
      return { before: row?.before ?? null, outcome: row?.blocked ? 'last_manager' : 'ok' };
    },
    async setPassword(username: string, passwordHash: string): Promise<AdminUserRow | undefined> {
      const r = await db.query<AdminUserRow>(
        `UPDATE admin_users SET password_hash = $2, password_changed_at = now() WHERE username = $1 RETURNING ${COLUMNS}`,
        [username, passwordHash],
      );
      return r.rows[0];
    },
    /** A stronger hash of the same password: written only if the stored hash is still `from`. */
    async replaceHash(id: string, from: string, to: string): Promise<boolean> {
      const r = await db.query('UPDATE admin_users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [
        id,
        from,
        to,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
    async setDisabled(username: string, disabled: boolean): Promise<AdminUserRow | undefined> {
      const r = await db.query<AdminUserRow>(
        `UPDATE admin_users SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END
          WHERE username = $1 RETURNING ${COLUMNS}`,
        [username, disabled],
      );
      return r.rows[0];
    },
  };
}
export type AdminUsersRepository = ReturnType<typeof adminUsersRepository>;
