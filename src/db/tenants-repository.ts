import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.js';

export interface Tenant {
  id: string;
  name: string;
  confirmation_email: boolean;
  timezone: string;
  create_rate_limit: number | null;
  hold_days: number;
  link_lifetime_days: number;
  created_at: Date;
}

export interface NewTenant {
  name: string;
  confirmationEmail?: boolean;
  timezone?: string;
}

const COLUMNS = 'id, name, confirmation_email, timezone, create_rate_limit, hold_days, link_lifetime_days, created_at';

export function tenantsRepository(db: Queryable) {
  return {
    async create(t: NewTenant): Promise<Tenant> {
      const r = await db.query<Tenant>(
        `INSERT INTO tenants (id, name, confirmation_email, timezone) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
        [randomUUID(), t.name, t.confirmationEmail ?? false, t.timezone ?? 'Europe/Paris'],
      );
      return r.rows[0] as Tenant;
    },
    async find(id: string): Promise<Tenant | undefined> {
      const r = await db.query<Tenant>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1`, [id]);
      return r.rows[0];
    },
    /** null: the instance default; 0: no limit. */
    async setCreateRateLimit(id: string, perMinute: number | null): Promise<void> {
      await db.query('UPDATE tenants SET create_rate_limit = $2 WHERE id = $1', [id, perMinute]);
    },
    async list(): Promise<Tenant[]> {
      const r = await db.query<Tenant>(`SELECT ${COLUMNS} FROM tenants ORDER BY created_at, id`);
      return r.rows;
    },
    async count(): Promise<number> {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
      return r.rows[0]?.n ?? 0;
    },
  };
}
export type TenantsRepository = ReturnType<typeof tenantsRepository>;
