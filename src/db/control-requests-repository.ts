import type { RequestType, Source, Status } from '../domain/index.js';
import { PG, pgCode, type Queryable } from './database.js';
import type { PaymentRequestRow } from './payment-requests-repository.js';

/** The back office's reads of payment requests: across tenants for a superuser, with search. */
export interface ControlListFilter {
  /** undefined: every tenant (a superuser). */
  tenantId?: string;
  status?: Status;
  requestType?: RequestType;
  /** Lower-cased substring of reference, reservation, guest name or e-mail. */
  text?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  checkinFrom?: string;
  checkinTo?: string;
  before?: { createdAt: Date; id: string };
  limit: number;
}

export interface ControlListRow {
  id: string;
  tenant_id: string;
  tenant_name: string;
  reference: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string;
  reservation_ref: string;
  checkin: string | null;
  created_at: Date;
}

export interface LedgerRow {
  id: string;
  kind: string;
  amount: number;
  currency: string;
  provider: string;
  provider_transaction_id: string | null;
  state: string;
  incident: string | null;
  source: string;
  actor: string | null;
  error: string | null;
  created_at: Date;
}

export interface HistoryRow {
  from_status: Status | null;
  to_status: string;
  source: Source;
  actor: string | null;
  detail: Record<string, unknown> | null;
  created_at: Date;
}

/** The search expression, exactly as the GIN trigram index (migration 0012) is built on it. */
export const SEARCH_EXPRESSION =
  "lower(p.reference || ' ' || p.reservation_ref || ' ' || p.guest_first_name || ' ' || p.guest_last_name || ' ' || p.guest_email)";

const LIST_COLUMNS = `p.id, p.tenant_id, t.name AS tenant_name, p.reference, p.request_type, p.status, p.amount,
  p.amount_captured, p.amount_refunded, p.currency, p.guest_first_name, p.guest_last_name, p.guest_email,
  p.reservation_ref, to_char(p.checkin, 'YYYY-MM-DD') AS checkin, p.created_at`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function controlRequestsRepository(db: Queryable) {
  return {
    /**
     * Newest first, keyset on (created_at, id). Only the filters given appear in the SQL, so
     * each combination is planned for the indexes it can use (the texts are few: one per set
     * of filters).
     */
    async list(f: ControlListFilter): Promise<ControlListRow[]> {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, ...values: unknown[]) => {
        let s = sql;
        for (const v of values) {
          params.push(v);
          s = s.replace('?', `$${params.length}`);
        }
        where.push(s);
      };
      if (f.tenantId) add('p.tenant_id = ?', f.tenantId);
      if (f.status) add('p.status = ?', f.status);
      if (f.requestType) add('p.request_type = ?', f.requestType);
      if (f.text) add(`${SEARCH_EXPRESSION} LIKE ?`, `%${likeEscape(f.text.toLowerCase())}%`);
      if (f.createdFrom) add('p.created_at >= ?', f.createdFrom);
      if (f.createdBefore) add('p.created_at < ?', f.createdBefore);
      if (f.checkinFrom) add('p.checkin >= ?::date', f.checkinFrom);
      if (f.checkinTo) add('p.checkin <= ?::date', f.checkinTo);
      if (f.before) add('(p.created_at, p.id) < (?, ?::uuid)', f.before.createdAt, f.before.id);
      params.push(f.limit);
      const r = await db.query<ControlListRow>(
        `SELECT ${LIST_COLUMNS} FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
          ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`,
        params,
      );
      return r.rows;
    },

    /** One request in the user's scope (tenantId undefined: any tenant); undefined otherwise. */
    async find(
      id: string,
      tenantId: string | undefined,
    ): Promise<(PaymentRequestRow & { tenant_name: string; checkin: string | null }) | undefined> {
      const r = await db.query<PaymentRequestRow & { tenant_name: string; checkin: string | null }>(
        `SELECT p.*, to_char(p.checkin, 'YYYY-MM-DD') AS checkin, t.name AS tenant_name
           FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
          WHERE p.id = $1 AND ($2::uuid IS NULL OR p.tenant_id = $2)`,
        [id, tenantId ?? null],
      );
      const row = r.rows[0];
      if (row) delete (row as { card_token?: unknown }).card_token;
      return row;
    },

    async history(id: string): Promise<HistoryRow[]> {
      const r = await db.query<HistoryRow>(
        'SELECT from_status, to_status, source, actor, detail, created_at FROM status_history WHERE payment_request_id = $1 ORDER BY id',
        [id],
      );
      return r.rows;
    },

    /** Every provider operation on the request; empty where the ledger table does not exist yet. */
    async ledger(id: string): Promise<LedgerRow[]> {
      try {
        const r = await db.query<LedgerRow>(
          `SELECT id::text AS id, kind, amount, currency, provider, provider_transaction_id, state, incident, source,
                  actor, error, created_at
             FROM money_ledger WHERE payment_request_id = $1 ORDER BY id`,
          [id],
        );
        return r.rows;
      } catch (err) {
        if (pgCode(err) === PG.undefinedTable) return [];
        throw err;
      }
    },

    /**
     * Queues the payment-link e-mail again. `nonce` comes from the form, so a double submit
     * or a reload queues it once (the outbox's cause is unique).
     */
    async queueLinkEmail(tenantId: string, id: string, nonce: string): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
         VALUES ($1, $2, 'payment_link', $3) ON CONFLICT (cause) DO NOTHING`,
        [tenantId, id, `payment_link_resend:${id}:${nonce}`],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
export type ControlRequestsRepository = ReturnType<typeof controlRequestsRepository>;
