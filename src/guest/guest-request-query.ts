import type { Queryable } from '../db/index.js';
import type { Currency, Language, RequestType, Status } from '../domain/index.js';

/** What the guest page shows of a request: no card data, no phone, no reservation details. */
export interface GuestRequest {
  id: string;
  tenantId: string;
  reference: string;
  requestType: RequestType;
  status: Status;
  amountCents: number;
  amountCapturedCents: number;
  amountRefundedCents: number;
  currency: Currency;
  language: Language;
  guestEmail: string;
  guestName: string;
  hotelName: string;
  /** The link's lifetime is over (judged by the database clock, the one that set it). */
  linkExpired: boolean;
  /** Money the guest paid since the last status change could not be taken, and went back. */
  moneyGivenBack: boolean;
}

interface Row {
  id: string;
  tenant_id: string;
  money_given_back: boolean;
  reference: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: Currency;
  language: Language;
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  hotel_name: string;
  link_expired: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The guest has no tenant to scope by: the unguessable uuid is the capability. A deleted
 * request is gone from here like an unknown one (its language went with it).
 */
export async function findGuestRequest(db: Queryable, id: string): Promise<GuestRequest | undefined> {
  if (!isUuid(id)) return undefined;
  const r = await db.query<Row>(
    `SELECT p.id, p.tenant_id, p.reference, p.request_type, p.status, p.amount, p.amount_captured, p.amount_refunded,
            p.currency, p.language, p.guest_email, p.guest_first_name, p.guest_last_name,
            t.name AS hotel_name, p.link_expires_at <= now() AS link_expired,
            EXISTS (SELECT 1 FROM money_ledger l
                     WHERE l.payment_request_id = p.id AND l.incident IS NOT NULL
                       AND l.kind IN ('payment', 'verification') AND l.created_at >= p.updated_at) AS money_given_back
       FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
      WHERE p.id = $1`,
    [id.toLowerCase()],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    reference: row.reference,
    requestType: row.request_type,
    status: row.status,
    amountCents: Number(row.amount),
    amountCapturedCents: Number(row.amount_captured),
    amountRefundedCents: Number(row.amount_refunded),
    currency: row.currency,
    language: row.language,
    guestEmail: row.guest_email,
    guestName: `${row.guest_first_name} ${row.guest_last_name}`.trim(),
    hotelName: row.hotel_name,
    linkExpired: row.link_expired,
    moneyGivenBack: row.money_given_back,
  };
}
