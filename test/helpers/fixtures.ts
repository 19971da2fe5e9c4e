import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/index.ts';
import { networkOfCardNumber, type Status } from '../../src/domain/index.ts';
import type { Notifications } from '../../src/ipn/index.ts';

/**
 * Puts a request in a status no API call can reach yet (AUTHORISED_TO_VALIDATE needs the
 * guest and the daily job). Arranges a test's starting point; never used to check a result.
 * AUTHORISED_TO_VALIDATE also gets a real sandbox hold, so capture and release reach a
 * provider that knows the transaction; `amountCaptured`, a real captured payment. Each with its
 * ledger row, as the real flows leave them.
 */
export async function arrangeStatus(db: Database, id: string, status: Status, extra: { amountCaptured?: number } = {}) {
  await db.query('UPDATE payment_requests SET status = $2 WHERE id = $1', [id, status]);
  if (status === 'AUTHORISED_TO_VALIDATE') await arrangeHold(db, id);
  if (extra.amountCaptured !== undefined) await arrangePayment(db, id, extra.amountCaptured);
}

/**
 * A captured payment of `cents`, as the guest's deposit leaves it: the sandbox's transaction,
 * the ledger's row, and the amount the request derives from it.
 */
export async function arrangePayment(db: Database, id: string, cents: number): Promise<string> {
  const transactionId = `txn_${randomBytes(12).toString('hex')}`;
  await db.query(
    `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, captured_amount, currency)
     SELECT $2, id, 'payment', 'captured', $3, $3, currency FROM payment_requests WHERE id = $1`,
    [id, transactionId, cents],
  );
  await ledgerRow(db, id, 'payment', cents, transactionId);
  await db.query(
    `UPDATE payment_requests SET provider = 'sandbox', provider_transaction_id = $2, amount_captured = $3 WHERE id = $1`,
    [id, transactionId, cents],
  );
  return transactionId;
}

async function ledgerRow(db: Database, id: string, kind: string, cents: number, transactionId: string) {
  await db.query(
    `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
       idempotency_key, state, source, actor)
     SELECT id, tenant_id, $2, $3, currency, 'sandbox', $4, 'fixture:' || $4, 'succeeded', 'job', 'fixture'
       FROM payment_requests WHERE id = $1`,
    [id, kind, cents, transactionId],
  );
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
  const amount = await db.query<{ amount: number }>('SELECT amount FROM payment_requests WHERE id = $1', [id]);
  await ledgerRow(db, id, 'hold', amount.rows[0]?.amount ?? 0, transactionId);
  return { token, transactionId };
}

/**
 * A guest's card registered on an IMPRINT of the sandbox, as its notification leaves it: the
 * card in the sandbox's vault and the registration applied through the service's own IPN path
 * (AUTHORISED, a sealed token, the card's network). For tests of the daily hold on `card`.
 */
export async function registerSandboxCard(
  t: { db: Database; app: { payreq: { notifications: Pick<Notifications, 'apply'> } } },
  paymentRequestId: string,
  card: string,
): Promise<void> {
  const { db, app } = t;
  const token = `tok_${randomBytes(12).toString('hex')}`;
  await db.query(
    'INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year, network) VALUES ($1, $2, 12, 2031, $3)',
    [token, card, networkOfCardNumber(card)],
  );
  const outcome = await app.payreq.notifications.apply('sandbox', {
    eventId: `evt_${randomBytes(8).toString('hex')}`,
    paymentRequestId,
    outcome: 'registered',
    cardToken: token,
    maskedPan: `${card.slice(0, 6)}XXXXXX${card.slice(-4)}`,
    expiryMonth: 12,
    expiryYear: 2031,
  });
  if (outcome !== 'applied') throw new Error(`the registration of ${card} was ${outcome}`);
}
