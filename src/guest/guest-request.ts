import type { Queryable } from '../db/index.ts';
import { type Currency, isUuid, type Language, type RequestType, type Status } from '../domain/index.ts';
import { CARD_EXPIRES_BEFORE_HOLD } from '../holds/index.ts';
import { holdDaysTold } from '../providers/index.ts';
import { logoPath } from '../tenants/index.ts';
import { guestRequestsRepository } from './guest-requests-repository.ts';

/** What the guest page shows of the hotel: its settings, each null while not set. */
export interface HotelDisplay {
  name: string;
  address: string | null;
  phone: string | null;
  contactEmail: string | null;
  termsUrl: string | null;
  /** `#rrggbb`, checked for contrast when it was set. */
  accentColor: string | null;
  /** Where payreq serves the logo (path on our origin); null: none. */
  logoPath: string | null;
}

/** The stay as the PMS described it in `reservation_data` (free-form: only text values are kept). */
export interface Stay {
  checkin?: string;
  checkout?: string;
  roomType?: string;
}

/**
 * What the guest page shows of a request: the guest's own booking and, once paid, the masked
 * card the provider reported; never a card token, the guest's phone or the rest of
 * reservation_data.
 */
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
  hotel: HotelDisplay;
  /** The PMS's booking reference. */
  reservationRef: string;
  stay: Stay;
  /** As the provider gave it ('' before any payment). */
  maskedPan: string;
  cardExpiry: { month: number; year: number } | null;
  /**
   * When the card was accepted (paid or registered); after a failed guarantee and another card,
   * when that card was registered. Null before.
   */
  settledAt: Date | null;
  /** The hotel's IANA time zone, for the date shown. */
  timezone: string;
  holdDays: number;
  /** The tenant's provider account ('lyra' with its mode), or none: the sandbox where there is one. */
  account: { provider: string; mode: string | null } | null;
  /** The link's lifetime is over (judged by the database clock, the one that set it). */
  linkExpired: boolean;
  /** Money the guest paid since the last status change could not be taken, and went back. */
  moneyGivenBack: boolean;
  /** ERROR because the bank refused the guarantee's hold: the guest is asked for another card. */
  guaranteeFailed: boolean;
  /** ERROR because the card just registered lapses before its hold (the card was not kept). */
  cardExpiresTooSoon: boolean;
  /** CANCELLED because the hotel released the hold (the guest arrived): nothing was charged. */
  released: boolean;
}

/** A text value of reservation_data, one line, or nothing. */
function stayValue(data: Record<string, unknown> | null, key: string): string | undefined {
  const v = data?.[key];
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const text = String(v).replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text.slice(0, 200);
}

/**
 * The guest has no tenant to scope by: the unguessable uuid is the capability. A deleted
 * request is gone from here like an unknown one (its language went with it).
 */
export async function findGuestRequest(db: Queryable, id: string): Promise<GuestRequest | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await guestRequestsRepository(db).find(id.toLowerCase());
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
    hotel: {
      name: row.hotel_name,
      address: row.address,
      phone: row.phone,
      contactEmail: row.contact_email,
      termsUrl: row.terms_url,
      accentColor: row.accent_color,
      logoPath: row.logo_hash ? logoPath(row.tenant_id, row.logo_hash) : null,
    },
    reservationRef: row.reservation_ref,
    stay: {
      checkin: stayValue(row.reservation_data, 'checkin'),
      checkout: stayValue(row.reservation_data, 'checkout'),
      roomType: stayValue(row.reservation_data, 'room_type'),
    },
    maskedPan: row.masked_pan,
    cardExpiry:
      row.card_expiry_month && row.card_expiry_year
        ? { month: Number(row.card_expiry_month), year: Number(row.card_expiry_year) }
        : null,
    settledAt: row.settled_at === null ? null : new Date(row.settled_at),
    timezone: row.timezone,
    holdDays: holdDaysTold(Number(row.hold_days), row.account_provider, row.card_network),
    account: row.account_provider ? { provider: row.account_provider, mode: row.account_mode } : null,
    linkExpired: row.link_expired,
    moneyGivenBack: row.money_given_back,
    guaranteeFailed: row.guarantee_failed,
    cardExpiresTooSoon: row.status === 'ERROR' && row.last_reason === CARD_EXPIRES_BEFORE_HOLD,
    released: row.released,
  };
}
