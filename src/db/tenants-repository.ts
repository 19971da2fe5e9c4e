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
  sender_email: string | null;
  created_at: Date;
}

export interface NewTenant {
  name: string;
  confirmationEmail?: boolean;
  timezone?: string;
}

const COLUMNS =
  'id, name, confirmation_email, timezone, create_rate_limit, hold_days, link_lifetime_days, sender_email, created_at';
// Column names are spliced into SQL: only plain identifiers, chosen by code, never by input.
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

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
    /**
     * Sets the given columns in one statement; undefined when there is no such tenant. The
     * caller (src/tenants) passes only the names of its settings table, validated values.
     */
    async update(
      id: string,
      patch: Readonly<Record<string, string | number | boolean | null>>,
    ): Promise<Tenant | undefined> {
      const names = Object.keys(patch);
      if (names.some((n) => !IDENTIFIER.test(n))) throw new Error('tenants.update: bad column name');
      if (names.length === 0) return this.find(id);
      const sets = names.map((n, i) => `${n} = $${i + 2}`).join(', ');
      const r = await db.query<Tenant>(`UPDATE tenants SET ${sets} WHERE id = $1 RETURNING ${COLUMNS}`, [
        id,
        ...names.map((n) => patch[n]),
      ]);
      return r.rows[0];
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
