import { GUARANTEE_FAILED, type Queryable, type RequestSummaryFields, statusLiterals } from '../db/index.ts';
import { type CardNetwork, type Language, OPEN_LINK_STATUSES } from '../domain/index.ts';

/** A request as the guest's pages read it, with its hotel's settings and provider account. */
export interface GuestRequestRow extends RequestSummaryFields {
  money_given_back: boolean;
  language: Language;
  hotel_name: string;
  link_expired: boolean;
  reservation_data: Record<string, unknown> | null;
  masked_pan: string;
  /** The network of the registered card; null: none, or not told. */
  card_network: CardNetwork | null;
  card_expiry_month: number | null;
  card_expiry_year: number | null;
  settled_at: Date | string | null;
  timezone: string;
  hold_days: number;
  address: string | null;
  phone: string | null;
  contact_email: string | null;
  terms_url: string | null;
  accent_color: string | null;
  logo_hash: string | null;
  account_provider: string | null;
  account_mode: string | null;
  /** The bank refused the guarantee's hold and no new card came since (ERROR). */
  guarantee_failed: boolean;
  /** Why payreq turned the last attempt into an ERROR itself (a card lapsing before its hold), if it did. */
  last_reason: string | null;
  /** CANCELLED by the release of its hold (the move from AUTHORISED_TO_VALIDATE), not by a cancel. */
  released: boolean;
}

/**
 * The guest has no tenant to scope by: the unguessable uuid (checked by the caller) is the
 * capability. A deleted request is gone from here like an unknown one.
 */
export function guestRequestsRepository(db: Queryable) {
  return {
    async find(id: string): Promise<GuestRequestRow | undefined> {
      const r = await db.query<GuestRequestRow>(
        `SELECT p.id, p.tenant_id, p.reference, p.request_type, p.status, p.amount, p.amount_captured, p.amount_refunded,
                p.currency, p.language, p.guest_email, p.guest_first_name, p.guest_last_name,
                p.reservation_ref, p.reservation_data, p.masked_pan, p.card_network, p.card_expiry_month, p.card_expiry_year,
                t.name AS hotel_name, p.link_expires_at <= now() AS link_expired, t.timezone, t.hold_days,
                t.address, t.phone, t.contact_email, t.terms_url, t.accent_color, t.logo_hash,
                a.provider AS account_provider, a.mode AS account_mode,
                ${GUARANTEE_FAILED('p')} AS guarantee_failed,
                (SELECT h.detail->>'reason' FROM status_history h
                  WHERE h.payment_request_id = p.id ORDER BY h.id DESC LIMIT 1) AS last_reason,
                (SELECT max(h.created_at) FROM status_history h
                  WHERE h.payment_request_id = p.id
                    AND ((h.from_status IN (${statusLiterals(OPEN_LINK_STATUSES)})
                          AND h.to_status IN ('AUTHORISED', 'AUTHORISED_TO_VALIDATE', 'CAPTURED'))
                      -- a new card after a refused renewal, the old hold still the guarantee
                      OR (h.from_status = 'AUTHORISED_TO_VALIDATE' AND h.to_status = 'AUTHORISED_TO_VALIDATE'
                          AND EXISTS (SELECT 1 FROM money_ledger l
                                       WHERE l.id = h.ledger_id AND l.kind = 'verification' AND l.incident IS NULL)))
                ) AS settled_at,
                (p.status = 'CANCELLED' AND EXISTS (
                  SELECT 1 FROM status_history h WHERE h.payment_request_id = p.id
                     AND h.from_status = 'AUTHORISED_TO_VALIDATE' AND h.to_status = 'CANCELLED')) AS released,
                EXISTS (SELECT 1 FROM money_ledger l
                         WHERE l.payment_request_id = p.id AND l.incident IS NOT NULL
                           AND l.kind IN ('payment', 'verification') AND l.created_at >= p.updated_at) AS money_given_back
           FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
           LEFT JOIN provider_accounts a ON a.tenant_id = p.tenant_id
          WHERE p.id = $1`,
        [id.toLowerCase()],
      );
      return r.rows[0];
    },
  };
}
