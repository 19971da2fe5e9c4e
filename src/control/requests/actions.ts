import type { ControlListRow, PaymentRequestRow } from '../../db/index.ts';
import { allowedFrom, OPEN_LINK_STATUSES, whyNotDeletable } from '../../domain/index.ts';

/** What staff may do to a request, by the one transition table (and the delete rule). */
export type RequestAction = 'capture' | 'release' | 'refund' | 'cancel' | 'delete' | 'resend';
export const REQUEST_ACTIONS: readonly RequestAction[] = ['capture', 'release', 'refund', 'cancel', 'delete', 'resend'];
/** Actions that move money and may take a partial amount. */
export const AMOUNT_ACTIONS: ReadonlySet<RequestAction> = new Set(['capture', 'refund']);

type Row = Pick<PaymentRequestRow | ControlListRow, 'status' | 'request_type' | 'amount_captured' | 'amount_refunded'>;

export function allowedActions(row: Row): RequestAction[] {
  const out: RequestAction[] = [];
  const can = (trigger: 'capture' | 'release' | 'refund' | 'cancel') =>
    allowedFrom(trigger, row.request_type).includes(row.status);
  if (can('capture')) out.push('capture');
  if (can('release')) out.push('release');
  if (can('refund') && row.amount_captured > row.amount_refunded) out.push('refund');
  if (can('cancel')) out.push('cancel');
  if (whyNotDeletable(row.status) === undefined) out.push('delete');
  if (OPEN_LINK_STATUSES.includes(row.status)) out.push('resend');
  return out;
}

/** The amount an action moves when no amount is given: all that is held, or all that is left. */
export function fullAmount(
  action: RequestAction,
  row: Pick<PaymentRequestRow, 'amount' | 'amount_captured' | 'amount_refunded'>,
): number {
  return action === 'refund' ? row.amount_captured - row.amount_refunded : row.amount;
}

/** "12.50" or "12,50" to cents; undefined when empty (the full amount); null when unreadable. */
export function parseAmountField(raw: string | undefined): number | undefined | null {
  const v = (raw ?? '').trim().replace(',', '.');
  if (v === '') return undefined;
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(v)) return null;
  return Math.round(Number(v) * 100);
}
