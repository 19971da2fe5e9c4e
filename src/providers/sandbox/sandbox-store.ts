import type { Database, Queryable } from '../../db/index.ts';
import { type HoldCardRules, type HoldRequest, holdsOnCards } from './sandbox-card-holds.ts';
import { type CheckoutAttempt, recordCheckout } from './sandbox-checkout-record.ts';
import { type KeyedOperation, operate, sandboxMoves } from './sandbox-money-moves.ts';
import { pendingNotification } from './sandbox-notifications.ts';
import {
  insertTransaction,
  type NewTransaction,
  type SandboxTransaction,
  type StoredCard,
  TX_SELECT,
} from './sandbox-transactions.ts';

// What the sandbox's provider, routes and notifier take from the store, from its one module.
export type { HoldRequest } from './sandbox-card-holds.ts';
export type { Operation } from './sandbox-money-moves.ts';
export { type PendingNotification, recordDelivered, recordFailed } from './sandbox-notifications.ts';
export { newId, type SandboxTransaction } from './sandbox-transactions.ts';

/**
 * The sandbox's own storage (tables sandbox_*), as an external provider keeps its vault,
 * ledger and outgoing notifications. The service's tables are never touched from here; the
 * retries of its notifications are scheduled by the queue every background job shares.
 * Its parts: the transactions and their lapse (sandbox-transactions.ts), the daily job's holds
 * on stored cards (sandbox-card-holds.ts), a guest's checkout (sandbox-checkout-record.ts), the
 * money moves under an idempotency key (sandbox-money-moves.ts), the notifications
 * (sandbox-notifications.ts).
 */
export function sandboxStore(db: Database) {
  return {
    insertTransaction: (t: NewTransaction) => insertTransaction(db, t),

    async findTransaction(id: string): Promise<SandboxTransaction | undefined> {
      const r = await db.query<SandboxTransaction>(`SELECT ${TX_SELECT} FROM sandbox_transactions t WHERE t.id = $1`, [
        id,
      ]);
      return r.rows[0];
    },

    async findCard(token: string): Promise<StoredCard | undefined> {
      const r = await db.query<StoredCard>(
        'SELECT token, card_number, exp_month, exp_year FROM sandbox_tokens WHERE token = $1',
        [token],
      );
      return r.rows[0];
    },

    holdsOnCards: (requests: readonly HoldRequest[], cards: HoldCardRules) => holdsOnCards(db, requests, cards),
    recordCheckout: (opts: CheckoutAttempt) => recordCheckout(db, opts),
    operate: (op: KeyedOperation, move: (tx: Queryable) => Promise<string | undefined>) => operate(db, op, move),
    ...sandboxMoves,

    /**
     * Every transaction of an order, oldest first, with the operation keys that made or moved it.
     * The keys are found by the order too (an operation is always on a transaction of its own
     * order): joined by the transaction alone, every view read the whole operations table, 19 ms
     * at 200,000 operations, and the reconcile check asks a view of each order it checks.
     */
    async order(orderId: string): Promise<(SandboxTransaction & { created_at: Date; keys: string[] })[]> {
      const r = await db.query<SandboxTransaction & { created_at: Date; keys: string[] }>(
        `SELECT ${TX_SELECT}, t.created_at,
                COALESCE(array_agg(o.key ORDER BY o.created_at) FILTER (WHERE o.key IS NOT NULL), '{}') AS keys
           FROM sandbox_transactions t
           LEFT JOIN sandbox_operations o ON o.order_id = t.order_id AND o.transaction_id = t.id
          WHERE t.order_id = $1
          GROUP BY t.id ORDER BY t.created_at, t.id`,
        [orderId],
      );
      return r.rows;
    },

    pending: (id: string) => pendingNotification(db, id),
  };
}

export type SandboxStore = ReturnType<typeof sandboxStore>;
