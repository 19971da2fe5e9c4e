import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';

export type ApiKeyStatus = 'active' | 'disabled' | 'revoked';

/** A key as seen by authentication: the key row with the tenant settings a request needs. */
export interface ApiKeyAuthRow {
  id: string;
  tenant_id: string;
  secret_hash: Buffer | Uint8Array;
  status: ApiKeyStatus;
  expires_at: Date | null;
  tenant_timezone: string;
  tenant_create_rate_limit: number | null;
  tenant_link_lifetime_days: number;
  tenant_confirmation_email: boolean;
  /** The tenant's account is a real provider's (not the sandbox): read with the key, at no extra query. */
  tenant_real_provider: boolean;
}

export interface ApiKeySummary {
  prefix: string;
  tenant_id: string;
  label: string;
  status: ApiKeyStatus;
  expires_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

const SUMMARY = 'prefix, tenant_id, label, status, expires_at, last_used_at, created_at';

export function apiKeysRepository(db: Queryable) {
  return {
    async insert(k: {
      tenantId: string;
      prefix: string;
      secretHash: Buffer;
      label: string;
      expiresAt: Date | null;
    }): Promise<ApiKeySummary> {
      const r = await db.query<ApiKeySummary>(
        `INSERT INTO api_keys (id, tenant_id, prefix, secret_hash, label, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SUMMARY}`,
        [randomUUID(), k.tenantId, k.prefix, k.secretHash, k.label, k.expiresAt],
      );
      return r.rows[0] as ApiKeySummary;
    },
    async findForAuth(prefix: string): Promise<ApiKeyAuthRow | undefined> {
      const r = await db.query<ApiKeyAuthRow>(
        `SELECT k.id, k.tenant_id, k.secret_hash, k.status, k.expires_at,
                t.timezone AS tenant_timezone, t.create_rate_limit AS tenant_create_rate_limit,
                t.link_lifetime_days AS tenant_link_lifetime_days,
                t.confirmation_email AS tenant_confirmation_email,
                coalesce(pa.provider IN ('lyra', 'stripe'), false) AS tenant_real_provider
           FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
           LEFT JOIN provider_accounts pa ON pa.tenant_id = k.tenant_id
          WHERE k.prefix = $1`,
        [prefix],
      );
      return r.rows[0];
    },
    /**
     * Moves a key to disabled or revoked. Revocation is final: a revoked key never comes back,
     * so the update refuses to touch one.
     */
    async setStatus(prefix: string, status: Exclude<ApiKeyStatus, 'active'>): Promise<ApiKeySummary | undefined> {
      const r = await db.query<ApiKeySummary>(
        `UPDATE api_keys SET status = $2, status_changed_at = now()
          WHERE prefix = $1 AND (status <> 'revoked' OR $2 = 'revoked') RETURNING ${SUMMARY}`,
        [prefix, status],
      );
      return r.rows[0];
    },
    /** Turns a disabled key back on. Only a disabled key moves: never a revoked one. */
    async enable(prefix: string): Promise<ApiKeySummary | undefined> {
      const r = await db.query<ApiKeySummary>(
        `UPDATE api_keys SET status = 'active', status_changed_at = now()
          WHERE prefix = $1 AND status = 'disabled' RETURNING ${SUMMARY}`,
        [prefix],
      );
      return r.rows[0];
    },
    async find(prefix: string): Promise<ApiKeySummary | undefined> {
      const r = await db.query<ApiKeySummary>(`SELECT ${SUMMARY} FROM api_keys WHERE prefix = $1`, [prefix]);
      return r.rows[0];
    },
    async list(tenantId: string): Promise<ApiKeySummary[]> {
      const r = await db.query<ApiKeySummary>(
        `SELECT ${SUMMARY} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, prefix`,
        [tenantId],
      );
      return r.rows;
    },
    /** At most one write per key per minute, whatever the request rate. */
    async touch(id: string): Promise<void> {
      await db.query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [id],
      );
    },
  };
}
