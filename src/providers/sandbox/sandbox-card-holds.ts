import type { Database } from '../../db/index.ts';
import { holdValidityTable } from '../hold-validity.ts';
import { newId } from './sandbox-transactions.ts';

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

/** How the sandbox's bank answers the test cards' holds. */
export interface HoldCardRules {
  /** Cards refused on every hold, with their decline code. */
  refused: Readonly<Record<string, string>>;
  /** Cards held once on an order, then refused on every later hold of it. */
  laterHoldsRefused: Readonly<Record<string, string>>;
  /** Cards whose holds fail technically (nothing recorded). */
  failing: readonly string[];
}

/** The sandbox's windows by network, in seconds: it plays the networks' rules. */
const VALIDITY = JSON.stringify(holdValidityTable('sandbox'));

/**
 * Holds on stored cards, all in one statement (the daily job places 100,000 of them): the
 * vault lookups, the operation keys and the ledger rows together. A card the bank refuses
 * (`refused`: numbers and their decline codes) gets a refused transaction with its code, as
 * a real provider shows one; a card that fails technically (`failing`) gets nothing. The
 * caller still decides from the card number returned. A key already used answers the
 * transaction it made, and places nothing. One answer per request, in order; undefined: no
 * such token.
 */
export async function holdsOnCards(
  db: Database,
  requests: readonly HoldRequest[],
  cards: HoldCardRules,
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
}
