import type { LedgerExportRow, RequestExportRow } from '../db/index.ts';
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
  // Why the hotel captured or refunded: the code of the closed list (docs/money.md), and its note.
  { header: 'reason', value: (r) => r.reason },
  { header: 'reason_note', value: (r) => r.reason_note },
];
