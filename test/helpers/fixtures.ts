import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/index.js';
import type { Status } from '../../src/domain/index.js';

/**
 * Puts a request in a status no API call can reach yet (AUTHORISED_TO_VALIDATE needs the
 * guest and the daily job). Arranges a test's starting point; never used to check a result.
 * AUTHORISED_TO_VALIDATE also gets a real sandbox hold, so capture and release reach a
 * provider that knows the transaction.
 */
export async function arrangeStatus(db: Database, id: string, status: Status, extra: { amountCaptured?: number } = {}) {
  await db.query(
    'UPDATE payment_requests SET status = $2, amount_captured = COALESCE($3, amount_captured) WHERE id = $1',
    [id, status, extra.amountCaptured ?? null],
  );
  if (status === 'AUTHORISED_TO_VALIDATE') await arrangeHold(db, id);
}

/**
 * What the guest's card registration and the daily job leave in the sandbox for a request: a
 * stored card (`card` decides later outcomes, as the test cards do) and an authorised hold of
 * the request's amount, named by the request's provider_transaction_id.
 */
export async function arrangeHold(
  db: Database,
  id: string,
  card = '4242424242424242',
): Promise<{ token: string; transactionId: string }> {
  const token = `tok_${randomBytes(12).toString('hex')}`;
  const transactionId = `txn_${randomBytes(12).toString('hex')}`;
  await db.query('INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2030)', [
    token,
    card,
  ]);
  await db.query(
    `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token)
     SELECT $2, id, 'hold', 'authorised', amount, currency, $3 FROM payment_requests WHERE id = $1`,
    [id, transactionId, token],
  );
  await db.query(
    `UPDATE payment_requests SET provider = 'sandbox', provider_transaction_id = $2,
       masked_pan = $3, card_expiry_month = 12, card_expiry_year = 2030 WHERE id = $1`,
    [id, transactionId, `${card.slice(0, 6)}XXXXXX${card.slice(-4)}`],
  );
  return { token, transactionId };
}
