import type { LedgerExportRow, RequestExportRow, SettlementExportRow } from '../db/index.ts';
import { isoInZone } from '../domain/index.ts';
import { declineReasonOf } from '../providers/index.ts';

/** One column of an export: its header (the JSON key too) and its value. */
export interface ExportColumn<Row> {
  header: string;
  value: (row: Row) => string | null;
  /** A decimal amount: a number in JSON (a string in CSV keeps its two decimals). */
  money?: true;
}

/** Minor units as a decimal in the currency's units: 15050 is 150.50. */
export const decimal = (cents: number): string => (cents / 100).toFixed(2);

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
  { header: 'hold_expires_at', value: (r) => (r.hold_expires_at ? local(r.hold_expires_at, r) : null) },
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
  { header: 'amount', value: (r) => decimal(r.amount), money: true },
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
];

/** A remittance line, signed as money to the hotel: a credit's amount, fee and net count against it. */
const signed = (r: SettlementExportRow, cents: number) => decimal(r.direction === 'debit' ? cents : -cents);

export const SETTLEMENT_COLUMNS: readonly ExportColumn<SettlementExportRow>[] = [
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
