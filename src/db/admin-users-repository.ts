import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.js';

export interface AdminUserRow {
  id: string;
  username: string;
  password_hash: string;
  tenant_id: string | null;
  disabled_at: Date | null;
  created_at: Date;
  password_changed_at: Date;
}

const COLUMNS = 'id, username, password_hash, tenant_id, disabled_at, created_at, password_changed_at';

/** A user as every back-office request checks them: the row, and where they stand on two factors. */
export interface SessionUserRow extends AdminUserRow {
  /** A confirmed second factor (TOTP). */
  two_factor_on: boolean;
  /** Their tenant requires a second factor of every user (a superuser has no tenant: false). */
  tenant_requires_2fa: boolean;
}

export function adminUsersRepository(db: Queryable) {
  return {
    /** undefined when the username is taken (unique index: two creates, one winner). */
    async insert(u: { username: string; passwordHash: string; tenantId: string | null }) {
      const r = await db.query<AdminUserRow>(
        `INSERT INTO admin_users (id, username, password_hash, tenant_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (username) DO NOTHING RETURNING ${COLUMNS}`,
        [randomUUID(), u.username, u.passwordHash, u.tenantId],
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
      const r = await db.query<SessionUserRow>(
        `SELECT ${COLUMNS.split(', ')
          .map((c) => `u.${c}`)
          .join(', ')},
                tf.confirmed_at IS NOT NULL AS two_factor_on, coalesce(t.require_2fa, false) AS tenant_requires_2fa
           FROM admin_users u
           LEFT JOIN admin_two_factor tf ON tf.user_id = u.id
           LEFT JOIN tenants t ON t.id = u.tenant_id
          WHERE u.id = $1`,
        [id],
      );
      return r.rows[0];
    },
    async list(tenantId?: string): Promise<AdminUserRow[]> {
      const r = await db.query<AdminUserRow>(
        `SELECT ${COLUMNS} FROM admin_users WHERE $1::uuid IS NULL OR tenant_id = $1 ORDER BY username`,
        [tenantId ?? null],
      );
      return r.rows;
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
