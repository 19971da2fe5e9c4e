import type { Database, Queryable } from '../../db/index.ts';
import {
  advanceClock,
  insertTransaction,
  NOT_LAPSED,
  type SandboxTransaction,
  TX_COLUMNS,
} from './sandbox-transactions.ts';

export type Operation = 'hold' | 'capture' | 'release' | 'refund' | 'void';

/** One money operation as the provider asks it of the store, under its idempotency key. */
export interface KeyedOperation {
  key: string;
  orderId: string;
  operation: Operation;
  transactionId: string;
  amount: number;
  at?: Date;
}

export type OperationResult =
  | { done: true; transactionId: string; legacyTransId: string; replay: boolean }
  | { done: false; reason?: string };

/** Thrown inside an operation's transaction to roll its key back when nothing moved. */
class NothingMoved extends Error {}

async function moved(q: Queryable, sql: string, params: unknown[]): Promise<string | undefined> {
  const r = await q.query<{ id: string }>(sql, params);
  return r.rows[0]?.id;
}

/** A transaction's number (a capture or release names the hold's, a refund its own). */
async function numberOf(q: Queryable, id: string): Promise<string> {
  const r = await q.query<{ legacy_trans_id: string }>(
    'SELECT legacy_trans_id FROM sandbox_transactions WHERE id = $1',
    [id],
  );
  return r.rows[0]?.legacy_trans_id ?? '';
}

/**
 * A money operation under the caller's idempotency key, in one transaction: the key is
 * recorded (its primary key is the guard), then `move` makes the change, conditional on the
 * state the transaction must be in. The same key again answers what it did the first time
 * and moves nothing; a move that finds nothing to move rolls the key back with it.
 */
export async function operate(
  db: Database,
  op: KeyedOperation,
  move: (tx: Queryable) => Promise<string | undefined>,
): Promise<OperationResult> {
  try {
    return await db.transaction(async (tx) => {
      const fresh = await tx.query(
        `INSERT INTO sandbox_operations (key, order_id, operation, transaction_id, amount, created_at)
         VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now())) ON CONFLICT (key) DO NOTHING RETURNING 1`,
        [op.key, op.orderId, op.operation, op.transactionId, op.amount, op.at?.toISOString() ?? null],
      );
      if (fresh.rowCount === 0) {
        const prior = await tx.query<{ operation: string; order_id: string; transaction_id: string }>(
          'SELECT operation, order_id, transaction_id FROM sandbox_operations WHERE key = $1',
          [op.key],
        );
        const p = prior.rows[0];
        if (p && p.operation === op.operation && p.order_id === op.orderId) {
          return {
            done: true,
            transactionId: p.transaction_id,
            legacyTransId: await numberOf(tx, p.transaction_id),
            replay: true,
          };
        }
        return { done: false, reason: 'idempotency key already used for another operation' };
      }
      // A run for a given day acts at that day's moment: the order's holds lapse by it.
      await advanceClock(tx, op.orderId, op.at);
      const moved = await move(tx);
      if (!moved) throw new NothingMoved();
      if (moved !== op.transactionId) {
        await tx.query('UPDATE sandbox_operations SET transaction_id = $2 WHERE key = $1', [op.key, moved]);
      }
      return { done: true, transactionId: moved, legacyTransId: await numberOf(tx, moved), replay: false };
    });
  } catch (err) {
    if (err instanceof NothingMoved) return { done: false };
    throw err;
  }
}

/**
 * The moves `operate` runs in its transaction: each changes a transaction only from the state it
 * must be in, and answers the id of the transaction that moved (undefined: nothing did).
 */
export const sandboxMoves = {
  /** Captures `amount` of an open hold. */
  capture: (q: Queryable, id: string, orderId: string, amount: number) =>
    moved(
      q,
      `UPDATE sandbox_transactions SET status = 'captured', captured_amount = $3
        WHERE id = $1 AND order_id = $2 AND kind = 'hold' AND status = 'authorised' AND $3 > 0 AND $3 <= amount
          AND ${NOT_LAPSED}
        RETURNING id`,
      [id, orderId, amount],
    ),

  /** Frees an open hold. */
  release: (q: Queryable, id: string, orderId: string) =>
    moved(
      q,
      `UPDATE sandbox_transactions SET status = 'cancelled'
        WHERE id = $1 AND order_id = $2 AND kind = 'hold' AND status = 'authorised' AND ${NOT_LAPSED}
        RETURNING id`,
      [id, orderId],
    ),

  /** Cancels a verification (its card leaves the vault) or an open hold. */
  async void(q: Queryable, id: string, orderId: string): Promise<string | undefined> {
    const r = await q.query<{ id: string; token: string | null; kind: string }>(
      `UPDATE sandbox_transactions SET status = 'cancelled'
        WHERE id = $1 AND order_id = $2
          AND ((kind = 'verification' AND status = 'accepted') OR (kind = 'hold' AND status = 'authorised' AND ${NOT_LAPSED}))
        RETURNING id, token, kind`,
      [id, orderId],
    );
    const row = r.rows[0];
    if (row?.kind === 'verification' && row.token) {
      await q.query('DELETE FROM sandbox_tokens WHERE token = $1', [row.token]);
    }
    return row?.id;
  },

  /** Adds to what was refunded of a captured payment or hold, and records the refund itself. */
  async refund(q: Queryable, id: string, orderId: string, amount: number): Promise<string | undefined> {
    const r = await q.query<SandboxTransaction>(
      `UPDATE sandbox_transactions
          SET refunded_amount = refunded_amount + $3,
              status = CASE WHEN refunded_amount + $3 = captured_amount THEN 'refunded' ELSE status END
        WHERE id = $1 AND order_id = $2 AND kind IN ('payment', 'hold') AND status = 'captured'
          AND $3 > 0 AND refunded_amount + $3 <= captured_amount
        RETURNING ${TX_COLUMNS}, false AS lapsed`,
      [id, orderId, amount],
    );
    const parent = r.rows[0];
    if (!parent) return undefined;
    return insertTransaction(q, {
      orderId,
      kind: 'refund',
      status: 'refunded',
      amount,
      currency: parent.currency,
      parentId: id,
    });
  },
};
