import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';

export interface Tenant {
  id: string;
  name: string;
  confirmation_email: boolean;
  timezone: string;
  create_rate_limit: number | null;
  hold_days: number;
  link_lifetime_days: number;
  sender_email: string | null;
  /** What the guest page shows of the hotel; null: not set, not shown. */
  address: string | null;
  phone: string | null;
  contact_email: string | null;
  terms_url: string | null;
  accent_color: string | null;
  /** Every user of the tenant signs in to the back office with a second factor (TOTP). */
  require_2fa: boolean;
  /** A refused hold e-mails the guest for another card, at most `guarantee_max_asks` times. */
  guarantee_ask_guest: boolean;
  guarantee_max_asks: number;
  /** Reminders of unpaid links (docs/e-mail.md, "Reminders"). */
  reminders: boolean;
  reminder_after_hours: number;
  reminder_before_expiry_hours: number;
  reminder_max: number;
  /** The daily digest to contact_email, at digest_hour in the hotel's zone. */
  digest_email: boolean;
  digest_hour: number;
  digest_language: 'en' | 'fr' | 'de';
  /** The logo's type and SHA-256 (hex); the bytes themselves are read by `logo()` only. */
  logo_type: string | null;
  logo_hash: string | null;
  created_at: Date;
}

export interface TenantLogo {
  bytes: Buffer;
  type: string;
  hash: string;
}

export interface NewTenant {
  name: string;
  confirmationEmail?: boolean;
  timezone?: string;
}

// Never the logo's bytes: every read of a tenant would carry up to 200 kB for nothing.
const COLUMNS =
  'id, name, confirmation_email, timezone, create_rate_limit, hold_days, link_lifetime_days, sender_email, ' +
  'address, phone, contact_email, terms_url, accent_color, require_2fa, guarantee_ask_guest, guarantee_max_asks, ' +
  'logo_type, logo_hash, created_at, ' +
  'reminders, reminder_after_hours, reminder_before_expiry_hours, reminder_max, digest_email, digest_hour, digest_language';
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
    /** Stores a logo already checked (src/tenants), or removes it with null; undefined when there is no such tenant. */
    async setLogo(id: string, logo: TenantLogo | null): Promise<Tenant | undefined> {
      const r = await db.query<Tenant>(
        `UPDATE tenants SET logo = $2, logo_type = $3, logo_hash = $4 WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, logo?.bytes ?? null, logo?.type ?? null, logo?.hash ?? null],
      );
      return r.rows[0];
    },
    /** The logo named by its hash: a URL with an old hash finds nothing, so it can be cached for good. */
    async logo(id: string, hash: string): Promise<TenantLogo | undefined> {
      const r = await db.query<{ logo: Uint8Array; logo_type: string; logo_hash: string }>(
        'SELECT logo, logo_type, logo_hash FROM tenants WHERE id = $1 AND logo_hash = $2',
        [id, hash],
      );
      const row = r.rows[0];
      return row ? { bytes: Buffer.from(row.logo), type: row.logo_type, hash: row.logo_hash } : undefined;
    },
    async list(): Promise<Tenant[]> {
      const r = await db.query<Tenant>(`SELECT ${COLUMNS} FROM tenants ORDER BY created_at, id`);
      return r.rows;
    },
    /** The hotels' time zones, at most two: one when every hotel shares it. */
    async zones(): Promise<string[]> {
      const r = await db.query<{ timezone: string }>('SELECT DISTINCT timezone FROM tenants LIMIT 2');
      return r.rows.map((row) => row.timezone);
    },
    async count(): Promise<number> {
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
      return r.rows[0]?.n ?? 0;
    },
  };
}
