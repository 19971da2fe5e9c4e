import type { Queryable } from './database.ts';

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
  /** The request it acted on, when it still exists: its reference and currency. */
  request_reference: string | null;
  request_currency: string | null;
  /** The hotel it belongs to: its name and time zone (null for a superuser's own action). */
  tenant_name: string | null;
  tenant_timezone: string | null;
}

export interface AuditFilter {
  /** Only this tenant's entries (a tenant user); undefined: all (a superuser). */
  tenantId?: string;
  action?: string;
  username?: string;
  paymentRequestId?: string;
  /** A request's reference (or any target named so). */
  reference?: string;
  /** From this instant, and before that one. */
  from?: Date;
  before?: Date;
  /** Keyset: entries older than this id. */
  beforeId?: string;
  limit: number;
}

const COLUMNS = `a.id::text AS id, a.at, a.username, a.tenant_id, a.ip, a.action, a.target, a.payment_request_id,
  a.outcome, a.detail, p.reference AS request_reference, p.currency AS request_currency, t.name AS tenant_name,
  t.timezone AS tenant_timezone`;

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
      // Newest first: ids follow the order entries were written.
      const r = await db.query<AuditRow>(
        `SELECT ${COLUMNS}
           FROM admin_audit a
           LEFT JOIN payment_requests p ON p.id = a.payment_request_id
           LEFT JOIN tenants t ON t.id = a.tenant_id
          WHERE ($1::uuid IS NULL OR a.tenant_id = $1)
            AND ($2::text IS NULL OR a.action = $2)
            AND ($3::text IS NULL OR a.username = $3)
            AND ($4::uuid IS NULL OR a.payment_request_id = $4)
            AND ($5::bigint IS NULL OR a.id < $5)
            AND ($7::text IS NULL OR p.reference = $7 OR a.target = $7)
            AND ($8::timestamptz IS NULL OR a.at >= $8)
            AND ($9::timestamptz IS NULL OR a.at < $9)
          ORDER BY a.id DESC LIMIT $6`,
        [
          f.tenantId ?? null,
          f.action ?? null,
          f.username ?? null,
          f.paymentRequestId ?? null,
          f.beforeId ?? null,
          f.limit,
          f.reference ?? null,
          f.from ?? null,
          f.before ?? null,
        ],
      );
      return r.rows;
    },
  };
}
export type AuditRepository = ReturnType<typeof auditRepository>;
