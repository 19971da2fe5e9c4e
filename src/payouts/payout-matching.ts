/**
 * Why a line of a provider's remittance matches no money payreq moved (docs/payouts.md):
 * - unknown_order: its order is none of the hotel's requests (a payment taken in the provider's
 *   back office, another shop's, another hotel's);
 * - unknown_transaction: the order is the hotel's, but payreq recorded no money under that
 *   transaction;
 * - direction_differs: a debit where payreq recorded a refund, or the other way round;
 * - currency_differs, amount_differs: another currency or amount than payreq moved (an operation
 *   changed in the provider's back office, a chargeback);
 * - already_paid_out: the money is held by another line already (remitted twice).
 */
export const UNMATCHED_REASONS = [
  'unknown_order',
  'unknown_transaction',
  'direction_differs',
  'currency_differs',
  'amount_differs',
  'already_paid_out',
] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

/** A debit (`DT`: the guest paid, money to the hotel) or a credit (`CT`: a refund, money back). */
export type RemittanceDirection = 'debit' | 'credit';

/**
 * A ledger row a remittance may pay out: money that moved (a guest's payment, a capture of a
 * hold, a refund) and succeeded; amounts in minor units. `transactionNumber`: the provider's
 * number of the transaction (Lyra's legacyTransId, the report's TRANSACTION_ID); null on rows
 * written before payreq kept it.
 */
export interface RemittableRow {
  id: string;
  kind: 'payment' | 'capture' | 'refund';
  amount: number;
  currency: string;
  transactionNumber: string | null;
}

/** What of a remittance line the match reads; amounts in minor units. */
export interface LineToMatch {
  transactionId: string;
  direction: RemittanceDirection;
  amount: number;
  currency: string;
}

export type LineMatch = { ledgerId: string } | { reason: UnmatchedReason; expected?: number };

const isDebit = (r: RemittableRow) => r.kind === 'payment' || r.kind === 'capture';
const sum = (rows: readonly RemittableRow[]) => rows.reduce((n, r) => n + r.amount, 0);

/**
 * The ledger row a remittance line pays out, or why none. `rows`: the order's remittable rows,
 * undefined when the order is not one of the hotel's; `paidOut`: whether a row is held by a line
 * already (an earlier import's, or an earlier line of this one).
 *
 * The line names the provider's transaction. A transaction payreq debited (a deposit paid, a
 * hold captured) is remitted as a debit of what it took, less what refunds of that same
 * transaction took back before it reached the bank (Lyra lowers a payment it has not sent to the
 * bank yet instead of crediting it); a refund made as a transaction of its own is remitted as a
 * credit. Rows written before payreq kept the provider's transaction number match by direction,
 * currency and amount, when exactly one of the order's such rows fits.
 */
export function matchLine(
  line: LineToMatch,
  rows: readonly RemittableRow[] | undefined,
  paidOut: (ledgerId: string) => boolean,
): LineMatch {
  if (!rows || rows.length === 0) return { reason: 'unknown_order' };
  const same = rows.filter((r) => r.transactionNumber === line.transactionId);
  if (same.length === 0) {
    const older = rows.filter(
      (r) =>
        r.transactionNumber === null &&
        (line.direction === 'debit' ? isDebit(r) : r.kind === 'refund') &&
        r.amount === line.amount &&
        r.currency === line.currency &&
        !paidOut(r.id),
    );
    return older.length === 1 ? { ledgerId: (older[0] as RemittableRow).id } : { reason: 'unknown_transaction' };
  }
  const debits = same.filter(isDebit);
  const credits = same.filter((r) => r.kind === 'refund');
  const debited = debits.length > 0;
  if (line.direction !== (debited ? 'debit' : 'credit')) return { reason: 'direction_differs' };
  // A capture of a hold names the hold's transaction, as its payment would: the last one counts.
  const row = (debited ? debits[debits.length - 1] : credits[credits.length - 1]) as RemittableRow;
  if (row.currency !== line.currency) return { reason: 'currency_differs' };
  const expected = debited ? sum(debits.slice(-1)) - sum(credits) : row.amount;
  if (expected !== line.amount) return { reason: 'amount_differs', expected };
  if (paidOut(row.id)) return { reason: 'already_paid_out' };
  return { ledgerId: row.id };
}

/**
 * A line's fee and net, signed as money to the hotel, from what the report gives: the gross
 * (a debit adds, a credit takes back), the fee the provider kept (negative: a commission given
 * back with a refund), the net that reached the bank; net = gross - fee, always. Given both
 * NET_AMOUNT and COMMISSION_AMOUNT, they must agree, the fee either way round; an answer that
 * is not a number of the gross (a fee larger than the gross, a payment's fee below zero, the
 * sign of amounts in another unit) is refused: undefined.
 */
export function lineAmounts(
  direction: RemittanceDirection,
  amount: number,
  net: number | undefined,
  commission: number | undefined,
): { gross: number; fee: number; net: number } | undefined {
  const gross = direction === 'debit' ? amount : -amount;
  let fee: number;
  if (net === undefined) fee = commission ?? 0;
  else {
    fee = gross - (direction === 'debit' ? net : -net);
    if (commission !== undefined && Math.abs(fee) !== commission) return undefined;
  }
  if (Math.abs(fee) > amount) return undefined;
  // A payment's fee is kept by the provider, never given: its net is not above its gross.
  if (direction === 'debit' && fee < 0) return undefined;
  return { gross, fee, net: gross - fee };
}
