import type { Currency, RequestType, Status } from '../domain/index.ts';
import {
  type ControlListFilter,
  listSource,
  ofTenant,
  requestConditions,
  type SearchMatch,
} from './control-requests-repository.ts';
import type { Queryable } from './database.ts';
import { whereBuilder } from './where-builder.ts';

/**
 * Where the last page of an export ended: the next one starts strictly after it. `at` is the
 * database's own text of the instant: a ledger time has microseconds a JavaScript date drops,
 * and a cursor rounded to the millisecond would read rows twice.
 */
export interface ExportCursor {
  at: string;
  id: string;
}

export interface RequestExportRow {
  id: string;
  tenant_id: string;
  reference: string;
  tenant_name: string;
  tenant_timezone: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: Currency;
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string;
  language: string;
  reservation_ref: string;
  checkin: string | null;
  checkout: string | null;
  /** When the open hold lapses (the card's network's window, or the hotel's shorter length). */
  hold_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

export interface LedgerExportRow {
  id: string;
  created_at: Date;
  cursor_at: string;
  payment_request_id: string;
  reference: string;
  reservation_ref: string;
  tenant_name: string;
  tenant_timezone: string;
  kind: string;
  state: string;
  amount: number;
  /** A release: the amount of the hold it freed (its own row's amount is 0); null otherwise. */
  released_amount: number | null;
  currency: Currency;
  provider: string;
  provider_transaction_id: string | null;
  source: string;
  incident: string | null;
  /** A refusal's code as the provider gave it (Lyra: `ACQ_001/51`). */
  decline_code: string | null;
  /** Why the hotel moved the money (a capture, a refund), and its note. */
  reason: string | null;
  reason_note: string | null;
}

export interface CurrencyTotals {
  currency: Currency;
  count: number;
  requested: number;
  captured: number;
  refunded: number;
}

/**
 * Exports read the list's filters a page at a time, oldest first, keyset on (created_at, id):
 * each page is one indexed range, so a million rows cost the same memory as a thousand.
 */
export function exportsRepository(db: Queryable) {
  return {
    /** Requests created in the filter's dates (and matching its other filters). */
    async requests(
      f: ControlListFilter,
      match: SearchMatch | undefined,
      after: ExportCursor | undefined,
      limit: number,
    ): Promise<RequestExportRow[]> {
      const w = whereBuilder();
      const src = listSource(f, match);
      requestConditions(w, f, match, 'joined');
      if (f.createdFrom) w.and(`${src.createdAt} >= ?`, f.createdFrom);
      if (f.createdBefore) w.and(`${src.createdAt} < ?`, f.createdBefore);
      if (after) w.and(`(${src.createdAt}, ${src.id}) > (?::timestamptz, ?::uuid)`, after.at, after.id);
      const r = await db.query<RequestExportRow>(
        `SELECT p.id, p.tenant_id, p.reference, t.name AS tenant_name, t.timezone AS tenant_timezone, p.request_type,
                p.status, p.amount, p.amount_captured, p.amount_refunded, p.currency, p.guest_first_name,
                p.guest_last_name, p.guest_email, p.language, p.reservation_ref,
                to_char(p.checkin, 'YYYY-MM-DD') AS checkin, p.reservation_data ->> 'checkout' AS checkout,
                p.hold_expires_at, p.created_at, p.updated_at, p.created_at::text AS cursor_at
           FROM ${src.from} JOIN tenants t ON t.id = p.tenant_id
           ${w.clause}
          ORDER BY ${src.createdAt}, ${src.id}
          LIMIT ${w.param(limit)}`,
        w.params,
        { planWithValues: true },
      );
      return ofTenant(r.rows, f.tenantId);
    },

    /** Ledger movements made in the filter's dates, of requests matching its other filters. */
    async ledger(
      f: ControlListFilter,
      match: SearchMatch | undefined,
      after: ExportCursor | undefined,
      limit: number,
    ): Promise<LedgerExportRow[]> {
      const w = whereBuilder();
      requestConditions(w, f, match);
      if (f.tenantId) w.and('l.tenant_id = ?', f.tenantId);
      if (f.createdFrom) w.and('l.created_at >= ?', f.createdFrom);
      if (f.createdBefore) w.and('l.created_at < ?', f.createdBefore);
      if (after) w.and('(l.created_at, l.id) > (?::timestamptz, ?::bigint)', after.at, after.id);
      const r = await db.query<LedgerExportRow>(
        `SELECT l.id::text AS id, l.created_at, l.created_at::text AS cursor_at, l.payment_request_id, p.reference, p.reservation_ref,
                t.name AS tenant_name, t.timezone AS tenant_timezone, l.kind, l.state, l.amount,
                CASE WHEN l.kind = 'release' THEN
                  (SELECT h.amount FROM money_ledger h
                    WHERE h.payment_request_id = l.payment_request_id AND h.kind = 'hold' AND h.state = 'succeeded'
                      AND h.provider_transaction_id = l.provider_transaction_id AND h.id < l.id
                    ORDER BY h.id DESC LIMIT 1)
                END AS released_amount, l.currency,
                l.provider, l.provider_transaction_id, l.source, l.incident, l.decline_code,
                l.reason, l.reason_note
           FROM money_ledger l
           JOIN payment_requests p ON p.id = l.payment_request_id
           JOIN tenants t ON t.id = p.tenant_id
           ${w.clause}
          ORDER BY l.created_at, l.id
          LIMIT ${w.param(limit)}`,
        w.params,
        { planWithValues: true },
      );
      return r.rows;
    },

    /**
     * Count and sums per currency of the requests the list shows, over at most `cap` of them:
     * a filter wider than that answers `undefined` (the page asks for narrower dates) rather
     * than summing a hotel's whole history on every page view.
     */
    async totals(
      f: ControlListFilter,
      match: SearchMatch | undefined,
      cap: number,
    ): Promise<CurrencyTotals[] | undefined> {
      const w = whereBuilder();
      const src = listSource(f, match);
      requestConditions(w, f, match, 'joined');
      if (f.createdFrom) w.and(`${src.createdAt} >= ?`, f.createdFrom);
      if (f.createdBefore) w.and(`${src.createdAt} < ?`, f.createdBefore);
      // As ofTenant does for the lists: a search row that disagreed with its request counts for nothing.
      const ofTenant = f.tenantId ? `WHERE picked.tenant_id = ${w.param(f.tenantId)}` : '';
      const r = await db.query<{
        currency: Currency;
        count: string;
        requested: string;
        captured: string;
        refunded: string;
      }>(
        `SELECT picked.currency, count(*) AS count, sum(picked.amount) AS requested,
                sum(picked.amount_captured) AS captured, sum(picked.amount_refunded) AS refunded
           FROM (SELECT p.tenant_id, p.currency, p.amount, p.amount_captured, p.amount_refunded
                   FROM ${src.from} ${w.clause}
                  LIMIT ${w.param(cap + 1)}) picked
          ${ofTenant}
          GROUP BY picked.currency
          ORDER BY picked.currency`,
        w.params,
        { planWithValues: true },
      );
      const totals = r.rows.map((row) => ({
        currency: row.currency,
        count: Number(row.count),
        requested: Number(row.requested),
        captured: Number(row.captured),
        refunded: Number(row.refunded),
      }));
      return totals.reduce((n, t) => n + t.count, 0) > cap ? undefined : totals;
    },
  };
}

export type ExportsRepository = ReturnType<typeof exportsRepository>;
