import { randomBytes, randomInt } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';

// A sandbox transaction as the store reads and writes it, the SQL that tells whether its hold
// has lapsed (by its order's clock), and the two writes every part of the store shares.

export type TransactionKind = 'verification' | 'payment' | 'hold' | 'refund';
export type TransactionStatus = 'accepted' | 'authorised' | 'captured' | 'cancelled' | 'refused' | 'error' | 'refunded';
/** As the order view shows it: an authorised hold past its end has lapsed. */
export type ShownStatus = TransactionStatus | 'expired';

export interface SandboxTransaction {
  id: string;
  order_id: string;
  kind: TransactionKind;
  status: TransactionStatus;
  amount: number;
  captured_amount: number;
  refunded_amount: number;
  currency: string;
  token: string | null;
  parent_id: string | null;
  /** A refused transaction's reason, as the sandbox's bank gives it (payreq's decline reasons). */
  decline_code: string | null;
  /** A hold's end: placed + its card's network window (docs/holds.md). */
  expires_at: Date | null;
  /** Why a merchant-initiated hold was placed: 'reauthorisation' for a renewal. */
  reason: string | null;
  /** An authorised hold past its end, by the order's clock. */
  lapsed: boolean;
  /** Its six-digit number, as Lyra's legacyTransId: what the sandbox's remittance report names it by. */
  legacy_trans_id: string;
}

export interface StoredCard {
  token: string;
  card_number: string;
  exp_month: number;
  exp_year: number;
}

export interface NewTransaction {
  /** Made here unless the caller needed it first (a checkout writes its attempt before it). */
  id?: string;
  orderId: string;
  kind: TransactionKind;
  status: TransactionStatus;
  amount: number;
  capturedAmount?: number;
  currency: string;
  token?: string | null;
  parentId?: string | null;
  /** Its number, when the caller needed it first (a checkout's notification names it); else one is drawn. */
  legacyTransId?: string;
}

/** A transaction's number as Lyra's: six digits (the table's default draws the same way). */
export function newTransactionNumber(): string {
  return String(randomInt(0, 900_000)).padStart(6, '0');
}

/** Ids in the provider's own style; random, so nothing can be guessed from one. */
export function newId(prefix: 'txn' | 'tok' | 'evt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * The order's clock: real time, or, once a job run for a given day (the test clock) touched the
 * order, the latest moment such a run stamped on it. Its holds lapse by it.
 */
const ORDER_CLOCK = (order: string) =>
  `COALESCE((SELECT c.at FROM sandbox_clocks c WHERE c.order_id = ${order}), now())`;

/** An authorised hold past its end, by its order's clock (`t` the transaction). */
const LAPSED = `(t.kind = 'hold' AND t.status = 'authorised' AND t.expires_at IS NOT NULL
  AND t.expires_at <= ${ORDER_CLOCK('t.order_id')})`;

/** Still capturable or releasable: not past its end (the update's own row). */
export const NOT_LAPSED = `(expires_at IS NULL OR expires_at > ${ORDER_CLOCK('sandbox_transactions.order_id')})`;

export const TX_COLUMNS =
  'id, order_id, kind, status, amount, captured_amount, refunded_amount, currency, token, parent_id, decline_code, expires_at, reason, legacy_trans_id';
export const TX_SELECT = `${TX_COLUMNS.split(', ')
  .map((c) => `t.${c}`)
  .join(', ')}, ${LAPSED} AS lapsed`;

/** Moves the order's clock to `at` (never back): a job run for that day touched it. */
export async function advanceClock(q: Queryable, orderId: string, at: Date | undefined): Promise<void> {
  if (!at) return;
  await q.query(
    `INSERT INTO sandbox_clocks (order_id, at) VALUES ($1, $2)
     ON CONFLICT (order_id) DO UPDATE SET at = GREATEST(sandbox_clocks.at, EXCLUDED.at)`,
    [orderId, at],
  );
}

export async function insertTransaction(q: Queryable, t: NewTransaction): Promise<string> {
  const id = t.id ?? newId('txn');
  await q.query(
    `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, captured_amount, currency, token, parent_id,
       legacy_trans_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      t.orderId,
      t.kind,
      t.status,
      t.amount,
      t.capturedAmount ?? 0,
      t.currency,
      t.token ?? null,
      t.parentId ?? null,
      t.legacyTransId ?? newTransactionNumber(),
    ],
  );
  return id;
}
