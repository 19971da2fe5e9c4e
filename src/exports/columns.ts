import type { LedgerExportRow, RequestExportRow } from '../db/index.ts';
import { holdIsLive, isoInZone } from '../domain/index.ts';
import type { PayoutExportRow } from '../payouts/index.ts';
import { declineReasonOf } from '../providers/index.ts';

/** One column of an export: its header (the JSON key too) and its value. */
export interface ExportColumn<Row> {
  header: string;
  value: (row: Row) => string | null;
  /** A decimal amount: a number in JSON (a string in CSV keeps its two decimals). */
  money?: true;
}

/** Minor units as a decimal in the currency's units: 15050 is 150.50, -2000 is -20.00. */
export const decimal = (cents: number): string => (cents / 100).toFixed(2);

/** Ledger kinds that move money, with their sign from the hotel's side: in, or given back. */
const MONEY_SIGN: Readonly<Record<string, 1 | -1>> = { payment: 1, capture: 1, refund: -1 };

/**
 * A movement's money, signed from the hotel's side: a payment or a capture comes in (positive),
 * a refund goes back (negative). Null for a movement that moves no money (a card's
 * verification, a hold and its release or void).
 */
export function signedAmount(r: LedgerExportRow): number | null {
  const sign = MONEY_SIGN[r.kind];
  return sign === undefined ? null : sign * r.amount;
}

/**
 * What a movement puts on hold on the guest's card (positive) or frees (negative), apart from
 * money: a hold's amount; a release, the amount of the hold it freed; a void, what it cancelled.
 * Null for the movements of money, and a void of a card's verification (which held nothing).
 */
export function heldAmount(r: LedgerExportRow): number | null {
  if (r.kind === 'hold') return r.amount;
  if (r.kind === 'release') return r.released_amount === null ? null : -r.released_amount;
  if (r.kind === 'void') return r.amount > 0 ? -r.amount : null;
  return null;
}

/** The money a movement did move: its signed amount once it succeeded, nothing otherwise. */
export function netAmount(r: LedgerExportRow): number {
  return r.state === 'succeeded' ? (signedAmount(r) ?? 0) : 0;
}

const orNull = (cents: number | null): string | null => (cents === null ? null : decimal(cents));

const local = (at: Date, row: { tenant_timezone: string }) => isoInZone(new Date(at), row.tenant_timezone);

export const REQUEST_COLUMNS: readonly ExportColumn<RequestExportRow>[] = [
  { header: 'reference', value: (r) => r.reference },
  { header: 'uuid', value: (r) => r.id },
  { header: 'hotel', value: (r) => r.tenant_name },
  { header: 'request_type', value: (r) => r.request_type },
  { header: 'status', value: (r) => r.status },
  { header: 'currency', value: (r) => r.currency },
  { header: 'amount', value: (r) => decimal(r.amount), money: true },
  { header: 'amount_captured', value: (r) => decimal(r.amount_captured), money: true },
  { header: 'amount_refunded', value: (r) => decimal(r.amount_refunded), money: true },
  { header: 'guest_first_name', value: (r) => r.guest_first_name },
  { header: 'guest_last_name', value: (r) => r.guest_last_name },
  { header: 'guest_email', value: (r) => r.guest_email },
  { header: 'language', value: (r) => r.language },
  { header: 'reservation_ref', value: (r) => r.reservation_ref },
  { header: 'checkin', value: (r) => r.checkin },
  { header: 'checkout', value: (r) => r.checkout },
  // Only while the hold is on the card: after its capture or release it ends nothing.
  {
    header: 'hold_expires_at',
    value: (r) => (r.hold_expires_at && holdIsLive(r.status) ? local(r.hold_expires_at, r) : null),
  },
  { header: 'created_at', value: (r) => local(r.created_at, r) },
  { header: 'updated_at', value: (r) => local(r.updated_at, r) },
];

export const LEDGER_COLUMNS: readonly ExportColumn<LedgerExportRow>[] = [
  { header: 'movement_id', value: (r) => r.id },
  { header: 'at', value: (r) => local(r.created_at, r) },
  { header: 'reference', value: (r) => r.reference },
  { header: 'uuid', value: (r) => r.payment_request_id },
  { header: 'reservation_ref', value: (r) => r.reservation_ref },
  { header: 'hotel', value: (r) => r.tenant_name },
  { header: 'kind', value: (r) => r.kind },
  { header: 'state', value: (r) => r.state },
  { header: 'currency', value: (r) => r.currency },
  // Money, signed (refunds negative); holds apart; what actually moved (docs/money.md, "Exports").
  { header: 'amount', value: (r) => orNull(signedAmount(r)), money: true },
  { header: 'held', value: (r) => orNull(heldAmount(r)), money: true },
  { header: 'net', value: (r) => decimal(netAmount(r)), money: true },
  { header: 'provider', value: (r) => r.provider },
  { header: 'provider_transaction_id', value: (r) => r.provider_transaction_id },
  { header: 'source', value: (r) => r.source },
  { header: 'incident', value: (r) => r.incident },
  // A refusal: why, on payreq's closed list (docs/holds.md), and the provider's own code.
  {
    header: 'decline_reason',
    value: (r) => (r.state === 'refused' ? declineReasonOf(r.provider, r.decline_code) : null),
  },
  { header: 'decline_code', value: (r) => r.decline_code },
  // Why the hotel captured or refunded: the code of the closed list (docs/money.md), and its note.
  { header: 'reason', value: (r) => r.reason },
  { header: 'reason_note', value: (r) => r.reason_note },
];

/** A remittance line, signed as money to the hotel: a credit's amount, fee and net count against it. */
const signed = (r: PayoutExportRow, cents: number) => decimal(r.direction === 'debit' ? cents : -cents);

export const PAYOUT_COLUMNS: readonly ExportColumn<PayoutExportRow>[] = [
  { header: 'remittance_nb', value: (r) => r.remittance_nb },
  { header: 'remittance_date', value: (r) => r.remittance_date },
  { header: 'provider', value: (r) => r.provider },
  { header: 'hotel', value: (r) => r.tenant_name },
  { header: 'currency', value: (r) => r.currency },
  { header: 'direction', value: (r) => r.direction },
  { header: 'transaction_id', value: (r) => r.transaction_id },
  { header: 'order_id', value: (r) => r.order_id },
  { header: 'reference', value: (r) => r.reference },
  { header: 'payment_date', value: (r) => r.payment_date },
  // The gross as money to the hotel (a refund negative), the fee the provider kept, the net paid out.
  { header: 'gross', value: (r) => signed(r, r.amount), money: true },
  { header: 'fee', value: (r) => decimal(r.fee), money: true },
  { header: 'net', value: (r) => decimal(r.net), money: true },
  { header: 'matched', value: (r) => (r.ledger_id ? 'true' : 'false') },
  { header: 'movement_id', value: (r) => r.ledger_id },
  { header: 'unmatched_reason', value: (r) => r.unmatched_reason },
  {
    header: 'payreq_amount',
    value: (r) => (r.expected_amount === null ? null : decimal(r.expected_amount)),
    money: true,
  },
  { header: 'payment_method', value: (r) => r.payment_method },
  { header: 'provider_match_status', value: (r) => r.match_status },
];
