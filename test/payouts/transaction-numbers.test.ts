import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PaymentProvider } from '../../src/providers/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

interface Row {
  kind: string;
  amount: number;
  legacy_trans_id: string | null;
  provider_transaction_id: string | null;
  answer_transaction_id: string | null;
}

async function ledger(t: ListeningApp, id: string): Promise<Row[]> {
  const r = await t.db.query<Row>(
    `SELECT kind, amount, legacy_trans_id, provider_transaction_id, answer_transaction_id
       FROM money_ledger WHERE payment_request_id = $1 AND state = 'succeeded' ORDER BY id`,
    [id],
  );
  return r.rows;
}

async function sandboxNumber(t: ListeningApp, transactionId: string | null): Promise<string | undefined> {
  const r = await t.db.query<{ legacy_trans_id: string }>(
    'SELECT legacy_trans_id FROM sandbox_transactions WHERE id = $1',
    [transactionId],
  );
  return r.rows[0]?.legacy_trans_id;
}

const SIX_DIGITS = /^[0-9]{6}$/;

// The provider's short number of each transaction (Lyra's legacyTransId, the TRANSACTION_ID of
// its bank reconciliation report) is kept with every ledger row that moves money: the guest's
// payment (reported by notification), a capture (the hold's number), a refund (its own number,
// or the payment's when Lyra lowered the payment instead of crediting it).
describe(`the provider's transaction number on each ledger row (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: ListeningApp;
  let fake: LyraFake;
  before(async () => {
    fake = await startLyraFake();
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('sandbox: the payment, a partial refund and a capture each carry the sandbox’s number', async () => {
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 120 });
    const paid = await submitCard(await checkoutForm(t, deposit.uuid), { number: '4242424242424242' });
    assert.equal(paid.status, 303);
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      payload: { amount: 40 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
    const [payment, refunded] = await ledger(t, deposit.uuid);
    assert.equal(payment?.kind, 'payment');
    assert.match(payment?.legacy_trans_id ?? '', SIX_DIGITS);
    assert.equal(payment?.legacy_trans_id, await sandboxNumber(t, payment?.provider_transaction_id ?? null));
    assert.equal(refunded?.kind, 'refund');
    assert.match(refunded?.legacy_trans_id ?? '', SIX_DIGITS);
    assert.equal(refunded?.legacy_trans_id, await sandboxNumber(t, refunded?.provider_transaction_id ?? null));
    const view = await (
      await fetch(`${t.baseUrl}/sandbox/orders/${deposit.uuid}`, { headers: t.tenant.headers })
    ).json();
    assert.deepEqual(
      view.transactions.map((x: { transaction_number: string }) => x.transaction_number),
      [payment?.legacy_trans_id, refunded?.legacy_trans_id],
      'the order view shows the numbers',
    );

    const imprint = await createRequest(t, { request_type: 'IMPRINT', amount: 150 });
    await arrangeStatus(t.db, imprint.uuid, 'AUTHORISED_TO_VALIDATE');
    const capture = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${imprint.uuid}/capture/`,
      payload: { amount: 95 },
    });
    assert.equal(capture.statusCode, 200, capture.body);
    const rows = await ledger(t, imprint.uuid);
    const hold = rows.find((r) => r.kind === 'hold');
    const captured = rows.find((r) => r.kind === 'capture');
    assert.match(captured?.legacy_trans_id ?? '', SIX_DIGITS);
    assert.equal(
      captured?.legacy_trans_id,
      await sandboxNumber(t, hold?.provider_transaction_id ?? null),
      "a capture names the hold's transaction",
    );
  });

  test('Lyra: REST V4’s cardDetails.legacyTransId, from the notification and from each answer', async () => {
    const hotel = await t.newTenant('Hôtel Lyra');
    await giveLyraAccount(t, hotel.tenantId, fake);
    const lyra: PaymentProvider = await t.app.payreq.providers.forTenant(hotel.tenantId);
    const created = await createRequest(t, { request_type: 'DEPOSIT', amount: 123.45 }, hotel);
    await arrangeStatus(t.db, created.uuid, 'PENDING');
    const form = await lyra.startGuestPayment({
      paymentRequestId: created.uuid,
      reference: created.reference,
      requestType: 'DEPOSIT',
      amountCents: 12345,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hôtel Lyra',
      returnUrl: `${t.baseUrl}/pay/${created.uuid}/result`,
      notifyUrl: `${t.baseUrl}/ipn/lyra/`,
    });
    const done = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    const delivered = await done.notify();
    assert.ok(delivered.delivered, delivered.failures.join(', '));
    const [payment] = await ledger(t, created.uuid);
    const atLyra = fake.store.order(created.uuid);
    assert.equal(atLyra.length, 1);
    assert.match(atLyra[0]?.legacyTransId ?? '', SIX_DIGITS);
    assert.equal(payment?.legacy_trans_id, atLyra[0]?.legacyTransId, 'from the notification');

    // Before the nightly batch Lyra lowers the payment (the same transaction, the same number)...
    const lowered = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${created.uuid}/refund/`,
      payload: { amount: 20 },
      tenant: hotel,
    });
    assert.equal(lowered.statusCode, 200, lowered.body);
    fake.remit();
    // ...after it, a refund is a CREDIT transaction of its own, with its own number.
    const credited = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${created.uuid}/refund/`,
      payload: { amount: 10 },
      tenant: hotel,
    });
    assert.equal(credited.statusCode, 200, credited.body);
    const [, first, second] = await ledger(t, created.uuid);
    assert.equal(first?.legacy_trans_id, atLyra[0]?.legacyTransId, 'a lowered payment keeps its number');
    const credit = fake.store.order(created.uuid).find((x) => x.operationType === 'CREDIT');
    assert.ok(credit, 'a CREDIT transaction');
    assert.equal(second?.legacy_trans_id, credit.legacyTransId, "a refund after the batch: the CREDIT's number");
    assert.notEqual(second?.legacy_trans_id, first?.legacy_trans_id);
  });
});
