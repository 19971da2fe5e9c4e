/**
 * Why a hotel captures or refunds money, as one closed list a front desk recognises, plus a
 * free note. The same list serves captures and refunds (a minibar bill is captured from a hold
 * or refunded when contested); `other` is for what the list does not name, the note saying what.
 * Optional everywhere: a move with no reason is "none given". Recorded on the move's ledger row
 * and its history row, on the request (the last capture's and the last refund's, so in its
 * detail and every event), in the audit and in the ledger export.
 */
export const MONEY_REASONS = [
  'no_show',
  'late_cancellation',
  'early_departure',
  'damage',
  'extras',
  'goodwill',
  'duplicate',
  'guest_request',
  'billing_error',
  'other',
] as const;

export type MoneyReason = (typeof MONEY_REASONS)[number];

/** The longest note a move may carry, in characters. */
export const MAX_REASON_NOTE = 500;

/** A move's reason and note as given (null: none given). */
export interface MoveReason {
  reason: MoneyReason | null;
  note: string | null;
}

export const NO_REASON: MoveReason = { reason: null, note: null };

export function isMoneyReason(v: unknown): v is MoneyReason {
  return typeof v === 'string' && (MONEY_REASONS as readonly string[]).includes(v);
}

/**
 * The reason and note of a move from what a caller sent: an empty note is none; a note is kept
 * as written, trimmed. An unknown reason is the caller's to refuse before this (the API's 400
 * invalid_reason, the back office's form).
 */
export function moveReason(reason: MoneyReason | undefined | null, note: string | undefined | null): MoveReason {
  const text = note?.trim() ?? '';
  return { reason: reason ?? null, note: text === '' ? null : text };
}
