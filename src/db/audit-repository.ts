import type { Queryable } from './database.js';

export type AuditOutcome = 'ok' | 'refused' | 'failed' | 'in_doubt';

export interface AuditEntry {
  username: string | null;
  tenantId: string | null;
  ip: string | null;
  action: string;
  target?: string | null;
  paymentRequestId?: string | null;
  outcome: AuditOutcome;
  detail?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  at: Date;
  username: string | null;
  tenant_id: string | null;
  ip: string | null;
  action: string;
  target: string | null;
  payment_request_id: string | null;
  outcome: AuditOutcome;
  detail: Record<string, unknown>;
}

export interface AuditFilter {
  /** Only this tenant's entries (a tenant user); undefined: all (a superuser). */
  tenantId?: string;
  action?: string;
  username?: string;
  paymentRequestId?: string;
  /** Keyset: entries older than this id. */
  beforeId?: string;
  limit: number;
}

const COLUMNS = 'id::text AS id, at, username, tenant_id, ip, action, target, payment_request_id, outcome, detail';

export function auditRepository(db: Queryable) {
  return {
    async record(e: AuditEntry): Promise<void> {
      await db.query(
        `INSERT INTO admin_audit (username, tenant_id, ip, action, target, payment_request_id, outcome, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          e.username,
          e.tenantId,
          e.ip,
          e.action,
          e.target ?? null,
          e.paymentRequestId ?? null,
          e.outcome,
          JSON.stringify(e.detail ?? {}),
        ],
      );
    },
    async list(f: AuditFilter): Promise<AuditRow[]> {
      const r = await db.query<AuditRow>(
        `SELECT ${COLUMNS} FROM admin_audit
          WHERE ($1::uuid IS NULL OR tenant_id = $1)
            AND ($2::text IS NULL OR action = $2)
            AND ($3::text IS NULL OR username = $3)
            AND ($4::uuid IS NULL OR payment_request_id = $4)
            AND ($5::bigint IS NULL OR id < $5)
          ORDER BY id DESC LIMIT $6`,
        [
          f.tenantId ?? null,
          f.action ?? null,
          f.username ?? null,
          f.paymentRequestId ?? null,
          f.beforeId ?? null,
          f.limit,
        ],
      );
      return r.rows;
    },
  };
}
export type AuditRepository = ReturnType<typeof auditRepository>;
