import type { Database } from '../../db/index.ts';
import { networkOfCardNumber } from '../../domain/index.ts';
import type { ClaimedJob } from '../../queue/index.ts';
import type { PendingNotification } from './sandbox-notifications.ts';
import { insertTransaction, type NewTransaction, newId, newTransactionNumber } from './sandbox-transactions.ts';

/** A guest's attempt at the sandbox's bank, as its card page posts it. */
export interface CheckoutAttempt {
  attemptId: string;
  card?: { number: string; expMonth: number; expYear: number };
  transaction: NewTransaction;
  succeeded: boolean;
  notification: {
    url: string;
    body: (ids: { transactionId: string; legacyTransId: string; token?: string }) => string;
  };
  leaseMs: number;
}

/** What the attempt recorded: its transaction, the card's token, and the notification claimed for delivery. */
export interface RecordedCheckout {
  transactionId: string;
  token?: string;
  notification: PendingNotification;
  job: ClaimedJob;
}

/**
 * The guest's attempt at the bank, its transaction and the notification announcing it, in
 * one transaction: the ledger never shows a payment the service will not hear about. The
 * attempt row is written first and is the guard: the same attempt posted twice, or a second
 * successful payment of an order already paid, hits a unique index and the attempt records
 * nothing (undefined). A card registration moves no money: another may follow on the same
 * order, as a real provider allows (a guest replacing a card the bank refused a hold on);
 * the same form posted twice still registers once. Posts racing each other wait on that index for the
 * first to commit; a check before the insert would let them all through. The notification
 * row is created already claimed (attempt 1, due after `leaseMs`): its job (made by the
 * table's trigger) comes back with it, and the caller delivers it and settles that job.
 */
export async function recordCheckout(db: Database, opts: CheckoutAttempt): Promise<RecordedCheckout | undefined> {
  return db.transaction(async (tx) => {
    const transactionId = newId('txn');
    const legacyTransId = newTransactionNumber();
    const guard = await tx.query(
      `INSERT INTO sandbox_checkout_attempts (attempt_id, order_id, succeeded, transaction_id, registration)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [
        opts.attemptId,
        opts.transaction.orderId,
        opts.succeeded,
        transactionId,
        opts.transaction.kind === 'verification',
      ],
    );
    if (guard.rowCount !== 1) return undefined;
    let token: string | undefined;
    if (opts.card) {
      token = newId('tok');
      await tx.query(
        'INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year, network) VALUES ($1, $2, $3, $4, $5)',
        [token, opts.card.number, opts.card.expMonth, opts.card.expYear, networkOfCardNumber(opts.card.number)],
      );
    }
    await insertTransaction(tx, { ...opts.transaction, id: transactionId, token: token ?? null, legacyTransId });
    const body = opts.notification.body({ transactionId, legacyTransId, ...(token ? { token } : {}) });
    const r = await tx.query<{ id: string }>(
      `INSERT INTO sandbox_notifications (url, body, attempts, next_attempt_at)
       VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond') RETURNING id::text`,
      [opts.notification.url, body, opts.leaseMs],
    );
    const id = (r.rows[0] as { id: string }).id;
    const job = await tx.query<ClaimedJob>(
      `SELECT id::text AS id, kind, ref, payload, attempts, fence::text AS fence, first_due_at
         FROM jobs WHERE kind = 'sandbox_notification' AND ref = $1`,
      [id],
    );
    return {
      transactionId,
      token,
      notification: { id, url: opts.notification.url, body },
      job: job.rows[0] as ClaimedJob,
    };
  });
}
