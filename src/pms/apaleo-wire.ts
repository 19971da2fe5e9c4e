/**
 * What payreq reads of Apaleo's answers and writes in its calls, read defensively: an answer
 * that is not the shape is treated as a fault of that call, never trusted field by field.
 *
 * Sources (docs/apaleo.md, "Sources"): the generated PHP client maks-oleksyuk/apaleo-php
 * (its DTOs `Reservation`, `Guest`, `FolioListItem`, `Payment`, `CreateCustomPayment`, the enums
 * `PaymentMethod`, `FolioType`, `FolioStatus`, `ReservationStatus`, and its contract snapshot
 * `tests/Contract/apaleo-api.json` of Apaleo's swagger), the n8n node apaleo/n8n-nodes-apaleo
 * (example bodies of a folio payment and a folio refund), apaleo.dev's guides.
 */
import type { CardNetwork } from '../domain/index.ts';

/** Apaleo's amounts: decimal in the currency's unit (`{"amount": 230, "currency": "EUR"}`). */
export interface MonetaryValue {
  amount: number;
  currency: string;
}

export interface ApaleoReservation {
  id: string;
  propertyId: string;
  status: string;
  arrival: string;
  departure: string;
  guest: { firstName: string | null; lastName: string | null; email: string | null; language: string | null };
  totalGrossAmount: MonetaryValue | null;
  balance: MonetaryValue | null;
  /** Each night's gross amount, in order (the rule "a deposit of N nights"). */
  nights: MonetaryValue[];
}

export interface ApaleoFolio {
  id: string;
  type: string;
  isMainFolio: boolean;
  status: string;
  /** The reservation it belongs to, where the answer says (`reservation.id`). */
  reservationId: string | null;
}

export interface ApaleoFolioEntry {
  id: string;
  receipt: string | null;
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function money(v: unknown): MonetaryValue | null {
  const m = record(v);
  if (!m || typeof m.amount !== 'number' || typeof m.currency !== 'string') return null;
  return { amount: m.amount, currency: m.currency };
}

/** A date-time or date as Apaleo writes it (`2026-12-24T17:00:00+01:00`): its day. */
const dayOf = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : '');

/** `GET /booking/v1/reservations/{id}`; undefined: not a reservation's shape. */
export function readReservation(body: unknown): ApaleoReservation | undefined {
  const r = record(body);
  const propertyId = text(record(r?.property)?.id) ?? text(r?.propertyId);
  if (!r || typeof r.id !== 'string' || !propertyId) return undefined;
  const guest = record(r.primaryGuest) ?? {};
  const slices = Array.isArray(r.timeSlices) ? r.timeSlices : [];
  return {
    id: r.id,
    propertyId,
    status: text(r.status) ?? '',
    arrival: dayOf(r.arrival),
    departure: dayOf(r.departure),
    guest: {
      firstName: text(guest.firstName),
      lastName: text(guest.lastName),
      email: text(guest.email),
      language: text(guest.preferredLanguage),
    },
    totalGrossAmount: money(r.totalGrossAmount),
    balance: money(r.balance),
    nights: slices.flatMap((s) => {
      const m = money(record(s)?.totalGrossAmount);
      return m ? [m] : [];
    }),
  };
}

/** `GET /finance/v1/folios?…` → `{"folios": [...], "count"}` (an empty list may be 204: no body). */
export function readFolios(body: unknown): ApaleoFolio[] | undefined {
  if (body === undefined) return [];
  const list = record(body)?.folios;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((f) => {
    const o = record(f);
    if (!o || typeof o.id !== 'string') return [];
    return [
      {
        id: o.id,
        type: text(o.type) ?? '',
        isMainFolio: o.isMainFolio === true,
        status: text(o.status) ?? '',
        reservationId: text(record(o.reservation)?.id),
      },
    ];
  });
}

/**
 * The folio the guest's money goes to: the reservation's main guest folio (type Guest,
 * isMainFolio), wherever the list puts it; a reservation has one. A folio the answer says is
 * another reservation's is never it, whatever the list holds.
 */
export function mainGuestFolio(folios: readonly ApaleoFolio[], reservationId: string): ApaleoFolio | undefined {
  return folios.find(
    (f) =>
      f.type.toLowerCase() === 'guest' &&
      f.isMainFolio &&
      (f.reservationId === null || f.reservationId === reservationId),
  );
}

/** `GET …/payments` → `{"payments": [...]}`, `GET …/refunds` → `{"refunds": [...]}` (204: none). */
export function readFolioEntries(body: unknown, key: 'payments' | 'refunds'): ApaleoFolioEntry[] | undefined {
  if (body === undefined) return [];
  const list = record(body)?.[key];
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((e) => {
    const o = record(e);
    return o && typeof o.id === 'string' ? [{ id: o.id, receipt: text(o.receipt) }] : [];
  });
}

/** `201 {"id": "…"}` of a payment or refund posted. */
export function readCreatedId(body: unknown): string | undefined {
  const id = record(body)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Apaleo's error bodies: `{"messages": [...]}` (apaleo.dev, API troubleshooting); else nothing. */
export function readMessages(body: unknown): string[] {
  const r = record(body);
  const list = r?.messages;
  if (Array.isArray(list)) return list.filter((m): m is string => typeof m === 'string');
  // The identity server speaks OAuth: `{"error": "invalid_client"}`.
  return typeof r?.error === 'string' ? [r.error] : [];
}

/** `GET /inventory/v1/properties/{id}`: its name (a text, or a text per language). */
export function readPropertyName(body: unknown): string | null {
  const name = record(body)?.name;
  if (typeof name === 'string') return name;
  const byLanguage = record(name);
  const first = byLanguage ? Object.values(byLanguage).find((v) => typeof v === 'string') : undefined;
  return typeof first === 'string' ? first : null;
}

/**
 * The payment method a card's money is booked under on the folio, from Apaleo's method enum
 * (PHP client `PaymentMethod`; `Psp*` and `Invoice` only come back from Apaleo): Visa is
 * `VisaCredit`, or `VisaDebit` where the provider said the card is a debit card (none of the
 * providers payreq has says so today); Mastercard `MasterCard`; American Express `Amex`;
 * anything else, Cartes Bancaires and Maestro included, `CreditCard`.
 */
export function paymentMethodOf(network: CardNetwork | null, funding?: 'debit' | 'credit'): string {
  if (network === 'visa') return funding === 'debit' ? 'VisaDebit' : 'VisaCredit';
  if (network === 'mastercard') return 'MasterCard';
  if (network === 'amex') return 'Amex';
  return 'CreditCard';
}

/** Minor units to Apaleo's decimal amount (two decimals: the currencies payreq takes). */
export const toApaleoAmount = (cents: number) => Math.round(cents) / 100;
