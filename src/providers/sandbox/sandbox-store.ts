import { randomBytes, randomInt } from 'node:crypto';
import type { Database, Queryable } from '../../db/index.ts';
import { networkOfCardNumber } from '../../domain/index.ts';
import type { ClaimedJob } from '../../queue/index.ts';
import { holdValidityTable } from '../hold-validity.ts';

/**
 * The sandbox's own storage (tables sandbox_*), as an external provider keeps its vault,
 * ledger and outgoing notifications. The service's tables are never touched from here; the
 * retries of its notifications are scheduled by the queue every background job shares.
 */
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

/** A notification to post: the row, as the queue's job for it came to this instance. */
export interface PendingNotification {
  id: string;
  url: string;
  body: string;
}

/** A transaction's number as Lyra's: six digits (the table's default draws the same way). */
export function newTransactionNumber(): string {
  return String(randomInt(0, 900_000)).padStart(6, '0');
}

/** Ids in the provider's own style; random, so nothing can be guessed from one. */
export function newId(prefix: 'txn' | 'tok' | 'evt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** One hold asked of the vault: the stored card and the order it is for. */
export interface HoldRequest {
  token: string;
  orderId: string;
  amount: number;
  currency: string;
  /** The caller's idempotency key: the same key is the same hold. */
  key: string;
  /** The test clock's moment, when the hold is made for a given day. */
  at?: Date;
  reason?: string;
}

/** What the vault did with one hold: its card, its transaction, and the bank's code if it refused it. */
export interface HeldOnCard {
  card_number: string;
  transaction_id: string | null;
  legacy_trans_id: string | null;
  decline_code: string | null;
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
const NOT_LAPSED = `(expires_at IS NULL OR expires_at > ${ORDER_CLOCK('sandbox_transactions.order_id')})`;

/** The sandbox's windows by network, in seconds: it plays the networks' rules. */
const VALIDITY = JSON.stringify(holdValidityTable('sandbox'));

const TX_COLUMNS =
  'id, order_id, kind, status, amount, captured_amount, refunded_amount, currency, token, parent_id, decline_code, expires_at, reason, legacy_trans_id';
const TX_SELECT = `${TX_COLUMNS.split(', ')
  .map((c) => `t.${c}`)
  .join(', ')}, ${LAPSED} AS lapsed`;

/** Moves the order's clock to `at` (never back): a job run for that day touched it. */
async function advanceClock(q: Queryable, orderId: string, at: Date | undefined): Promise<void> {
  if (!at) return;
  await q.query(
    `INSERT INTO sandbox_clocks (order_id, at) VALUES ($1, $2)
     ON CONFLICT (order_id) DO UPDATE SET at = GREATEST(sandbox_clocks.at, EXCLUDED.at)`,
    [orderId, at],
  );
}

async function insertTransaction(q: Queryable, t: NewTransaction): Promise<string> {
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

export type Operation = 'hold' | 'capture' | 'release' | 'refund' | 'void';

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

    /**
     * Holds on stored cards, all in one statement (the daily job places 100,000 of them): the
     * vault lookups, the operation keys and the ledger rows together. A card the bank refuses
     * (`refused`: numbers and their decline codes) gets a refused transaction with its code, as
     * a real provider shows one; a card that fails technically (`failing`) gets nothing. The
     * caller still decides from the card number returned. A key already used answers the
     * transaction it made, and places nothing. One answer per request, in order; undefined: no
     * such token.
     */
    async holdsOnCards(
      requests: readonly HoldRequest[],
      cards: {
        /** Cards refused on every hold, with their decline code. */
        refused: Readonly<Record<string, string>>;
        /** Cards held once on an order, then refused on every later hold of it. */
        laterHoldsRefused: Readonly<Record<string, string>>;
        /** Cards whose holds fail technically (nothing recorded). */
        failing: readonly string[];
      },
    ): Promise<(HeldOnCard | undefined)[]> {
      if (requests.length === 0) return [];
      const r = await db.query<HeldOnCard & { k: number }>(
        `WITH req AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::text[], $7::text[],
                                $10::timestamptz[], $11::text[]) WITH ORDINALITY
                    AS r(token, txn, order_id, amount, currency, key, at, reason, k)
         ), prior AS (
           -- One primary-key lookup per hold, whatever the statistics say: the table grows by a
           -- row per hold while the job runs, faster than they follow, and a plan made when it
           -- was small read all of it for every group (quadratic over the run).
           SELECT req.k, o.transaction_id
             FROM req CROSS JOIN LATERAL (SELECT s.transaction_id FROM sandbox_operations s
                                           WHERE s.key = req.key LIMIT 1) o
         ), card AS (
           SELECT req.*, t.card_number,
                  COALESCE($8::jsonb ->> t.card_number,
                           -- CASE keeps the lookup to the cards it concerns: not on the daily job's path.
                           CASE WHEN $12::jsonb ? t.card_number THEN
                             CASE WHEN EXISTS (SELECT 1 FROM sandbox_transactions h
                                                WHERE h.order_id = req.order_id AND h.kind = 'hold'
                                                  AND h.status <> 'refused')
                                  THEN $12::jsonb ->> t.card_number END
                           END) AS decline_code,
                  COALESCE(req.at, now()) AS placed_at,
                  ($9::jsonb ->> COALESCE(t.network, 'other'))::int AS window_secs
             FROM req JOIN sandbox_tokens t ON t.token = req.token
         ), ops AS (
           INSERT INTO sandbox_operations (key, order_id, operation, transaction_id, amount)
           SELECT key, order_id, 'hold', txn, amount FROM card
            WHERE card_number <> ALL($6::text[]) AND k NOT IN (SELECT k FROM prior)
           ON CONFLICT (key) DO NOTHING
           RETURNING key
         ), ins AS (
           INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token, decline_code,
                                             created_at, expires_at, reason)
           SELECT txn, order_id, 'hold', CASE WHEN decline_code IS NULL THEN 'authorised' ELSE 'refused' END,
                  amount, currency, token, decline_code, placed_at,
                  CASE WHEN decline_code IS NULL THEN placed_at + make_interval(secs => window_secs) END, reason
             FROM card JOIN ops USING (key)
           RETURNING id, legacy_trans_id
         ), clock AS (
           INSERT INTO sandbox_clocks (order_id, at)
           SELECT DISTINCT ON (order_id) order_id, at FROM card JOIN ops USING (key)
            WHERE at IS NOT NULL ORDER BY order_id, at DESC
           ON CONFLICT (order_id) DO UPDATE SET at = GREATEST(sandbox_clocks.at, EXCLUDED.at)
         )
         SELECT card.k::int AS k, card.card_number, COALESCE(prior.transaction_id, ins.id) AS transaction_id,
                COALESCE(ins.legacy_trans_id, made.legacy_trans_id) AS legacy_trans_id,
                COALESCE(made.decline_code, card.decline_code) AS decline_code
           FROM card LEFT JOIN ins ON ins.id = card.txn LEFT JOIN prior ON prior.k = card.k
           LEFT JOIN sandbox_transactions made ON made.id = prior.transaction_id`,
        [
          requests.map((q) => q.token),
          requests.map(() => newId('txn')),
          requests.map((q) => q.orderId),
          requests.map((q) => q.amount),
          requests.map((q) => q.currency),
          cards.failing,
          requests.map((q) => q.key),
          JSON.stringify(cards.refused),
          VALIDITY,
          requests.map((q) => q.at?.toISOString() ?? null),
          requests.map((q) => q.reason ?? null),
          JSON.stringify(cards.laterHoldsRefused),
        ],
      );
      const answers: (HeldOnCard | undefined)[] = requests.map(() => undefined);
      for (const { k, ...held } of r.rows) answers[k - 1] = held;
      return answers;
    },

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
    async recordCheckout(opts: {
      attemptId: string;
      card?: { number: string; expMonth: number; expYear: number };
      transaction: NewTransaction;
      succeeded: boolean;
      notification: {
        url: string;
        body: (ids: { transactionId: string; legacyTransId: string; token?: string }) => string;
      };
      leaseMs: number;
    }): Promise<
      { transactionId: string; token?: string; notification: PendingNotification; job: ClaimedJob } | undefined
    > {
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
    },

    /**
     * A money operation under the caller's idempotency key, in one transaction: the key is
     * recorded (its primary key is the guard), then `move` makes the change, conditional on the
     * state the transaction must be in. The same key again answers what it did the first time
     * and moves nothing; a move that finds nothing to move rolls the key back with it.
     */
    async operate(
      op: { key: string; orderId: string; operation: Operation; transactionId: string; amount: number; at?: Date },
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
    },

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

    /** Every transaction of an order, oldest first, with the operation keys that made or moved it. */
    async order(orderId: string): Promise<(SandboxTransaction & { created_at: Date; keys: string[] })[]> {
      const r = await db.query<SandboxTransaction & { created_at: Date; keys: string[] }>(
        `SELECT ${TX_SELECT}, t.created_at,
                COALESCE(array_agg(o.key ORDER BY o.created_at) FILTER (WHERE o.key IS NOT NULL), '{}') AS keys
           FROM sandbox_transactions t LEFT JOIN sandbox_operations o ON o.transaction_id = t.id
          WHERE t.order_id = $1
          GROUP BY t.id ORDER BY t.created_at, t.id`,
        [orderId],
      );
      return r.rows;
    },

    /** A notification still to deliver; undefined once delivered. */
    async pending(id: string): Promise<PendingNotification | undefined> {
      const r = await db.query<PendingNotification>(
        'SELECT id::text AS id, url, body FROM sandbox_notifications WHERE id = $1::bigint AND delivered_at IS NULL',
        [id],
      );
      return r.rows[0];
    },
  };
}

export type SandboxStore = ReturnType<typeof sandboxStore>;

/** Delivered at its `attempts`-th try: written with the job's settlement. */
export async function recordDelivered(q: Queryable, id: string, attempts: number): Promise<void> {
  await q.query(
    `UPDATE sandbox_notifications SET delivered_at = now(), last_error = NULL, attempts = $2
      WHERE id = $1::bigint AND delivered_at IS NULL`,
    [id, attempts],
  );
}

/** A failed try, and when the next one is due (the last one's time if given up). */
export async function recordFailed(
  q: Queryable,
  id: string,
  error: string,
  next: Date,
  attempts: number,
): Promise<void> {
  await q.query(
    `UPDATE sandbox_notifications SET last_error = $2, next_attempt_at = $3::timestamptz, attempts = $4
      WHERE id = $1::bigint AND delivered_at IS NULL`,
    [id, error.slice(0, 500), next, attempts],
  );
}
