import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ProviderError, type TransactionCall } from '../../src/providers/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { sandboxOf } from '../helpers/providers.ts';
import { checkoutForm, detail, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

/** An IMPRINT registered by the guest with `card`: the sandbox's token and the request. */
async function registered(t: ListeningApp, card: string, amount = 150) {
  const c = await createRequest(t, { request_type: 'IMPRINT', amount });
  assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: card })).status, 303);
  const row = (
    await t.db.query<{ card_token: string; reference: string }>(
      'SELECT card_token, reference FROM payment_requests WHERE id = $1',
      [c.uuid],
    )
  ).rows[0];
  assert.ok(row?.card_token, 'card registered');
  return { id: c.uuid, reference: row.reference, token: t.app.payreq.cardTokens.open(row.card_token, c.uuid) };
}

async function expectProviderError(p: Promise<unknown>, kind: ProviderError['kind'], message?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.kind, kind);
    if (message) assert.match(err.message, message);
    return true;
  });
}

async function txn(t: ListeningApp, id: string) {
  return (
    await t.db.query<{
      kind: string;
      status: string;
      amount: number;
      captured_amount: number;
      refunded_amount: number;
    }>('SELECT kind, status, amount, captured_amount, refunded_amount FROM sandbox_transactions WHERE id = $1', [id])
  ).rows[0];
}

describe(`sandbox holds, capture, release, refund (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
  });
  const provider = () => sandboxOf(t.app);
  const key = () => `test:${randomUUID()}`;

  async function hold(card = '4242424242424242', amount = 150) {
    const r = await registered(t, card, amount);
    const { transactionId } = await provider().silentHold({
      orderId: r.id,
      idempotencyKey: key(),
      reference: r.reference,
      cardToken: r.token,
      amountCents: amount * 100,
      currency: 'EUR',
    });
    const ref: Omit<TransactionCall, 'idempotencyKey'> = {
      orderId: r.id,
      reference: r.reference,
      currency: 'EUR',
      transactionId,
    };
    return { ...r, transactionId, ref };
  }

  test('silentHold with a card registered as 4242…: an authorised hold of the amount', async () => {
    const h = await hold('4242424242424242', 150);
    assert.match(h.transactionId, /^txn_/);
    assert.deepEqual(await txn(t, h.transactionId), {
      kind: 'hold',
      status: 'authorised',
      amount: 15000,
      captured_amount: 0,
      refunded_amount: 0,
    });
  });

  test('silentHold: an unknown token is a technical error', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
    await expectProviderError(
      provider().silentHold({
        orderId: c.uuid,
        idempotencyKey: key(),
        reference: c.reference,
        cardToken: 'tok_nope',
        amountCents: 1000,
        currency: 'EUR',
      }),
      'technical',
    );
  });

  // The refused and technical-error cards never register through the card page, so their
  // tokens are put in the vault directly, as a card that went bad after registration. A refusal
  // is the bank's answer, a refused transaction with its reason, as a real provider shows one;
  // a technical failure leaves nothing.
  for (const [card, kind, reason] of [
    ['4000000000000002', 'refused', 'do_not_honour'],
    ['4000000000009995', 'refused', 'insufficient_funds'],
    ['4000000000009979', 'refused', 'lost_or_stolen'],
    ['4000000000000119', 'technical', null],
  ] as const) {
    test(`silentHold with a stored ${card}: ProviderError ${kind}${reason ? ` (${reason})` : ', nothing written'}`, async () => {
      const c = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
      await t.db.query(
        'INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ($1, $2, 12, 2030)',
        [`tok_${card}`, card],
      );
      let answered: ProviderError | undefined;
      try {
        await provider().silentHold({
          orderId: c.uuid,
          idempotencyKey: key(),
          reference: c.reference,
          cardToken: `tok_${card}`,
          amountCents: 1000,
          currency: 'EUR',
        });
      } catch (err) {
        if (err instanceof ProviderError) answered = err;
      }
      assert.equal(answered?.kind, kind);
      const held = await t.db.query<{ id: string; status: string; decline_code: string | null }>(
        'SELECT id, status, decline_code FROM sandbox_transactions WHERE order_id = $1',
        [c.uuid],
      );
      if (!reason) return assert.equal(held.rows.length, 0);
      assert.deepEqual(
        held.rows.map((r) => [r.status, r.decline_code]),
        [['refused', reason]],
      );
      assert.deepEqual(answered?.answer, { transactionId: held.rows[0]?.id, status: 'refused', declineCode: reason });
    });
  }

  test('silentHold: calls made together each get their own answer, written by one statement', async () => {
    const a = await registered(t, '4242424242424242', 120);
    const b = await registered(t, '4242424242424242', 130);
    const c = await registered(t, '4242424242424242', 140);
    const refusedCard = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
    await t.db.query(
      "INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year) VALUES ('tok_together', '4000000000000002', 12, 2030)",
    );
    const ask = (id: string, reference: string, cardToken: string, amountCents: number) =>
      provider().silentHold({ orderId: id, reference, cardToken, amountCents, currency: 'EUR', idempotencyKey: key() });
    const [ha, refused, hb, unknown, hc] = await Promise.allSettled([
      ask(a.id, a.reference, a.token, 12000),
      ask(refusedCard.uuid, refusedCard.reference, 'tok_together', 1000),
      ask(b.id, b.reference, b.token, 13000),
      ask(refusedCard.uuid, refusedCard.reference, 'tok_unknown', 1000),
      ask(c.id, c.reference, c.token, 14000),
    ]);
    for (const [r, kind] of [
      [refused, 'refused'],
      [unknown, 'technical'],
    ] as const) {
      assert.equal(r?.status, 'rejected');
      if (r?.status === 'rejected') {
        assert.ok(r.reason instanceof ProviderError);
        assert.equal(r.reason.kind, kind);
      }
    }
    const ids: string[] = [];
    for (const h of [ha, hb, hc]) {
      assert.equal(h?.status, 'fulfilled');
      if (h?.status === 'fulfilled') ids.push(h.value.transactionId);
    }
    const rows = await t.db.query<{ id: string; order_id: string; amount: number; created_at: Date }>(
      'SELECT id, order_id, amount, created_at FROM sandbox_transactions WHERE id = ANY($1::text[])',
      [ids],
    );
    const byId = new Map(rows.rows.map((r) => [r.id, r]));
    assert.deepEqual(
      ids.map((id) => [byId.get(id)?.order_id, byId.get(id)?.amount]),
      [
        [a.id, 12000],
        [b.id, 13000],
        [c.id, 14000],
      ],
    );
    // One statement, one transaction: now() is the same for every row it wrote.
    assert.equal(new Set(rows.rows.map((r) => r.created_at.getTime())).size, 1);
    const refusedOnly = await t.db.query<{ status: string }>(
      'SELECT status FROM sandbox_transactions WHERE order_id = $1',
      [refusedCard.uuid],
    );
    assert.deepEqual(
      refusedOnly.rows.map((r) => r.status),
      ['refused'],
      'the refused card: its refused transaction only',
    );
  });

  test('capture: partial is allowed; a second capture of the same hold is refused', async () => {
    const h = await hold();
    await provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 4000 });
    const after = await txn(t, h.transactionId);
    assert.equal(after?.status, 'captured');
    assert.equal(after?.captured_amount, 4000);
    await expectProviderError(
      provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 4000 }),
      'refused',
      /captured/,
    );
    assert.equal((await txn(t, h.transactionId))?.captured_amount, 4000);
  });

  test('capture above the held amount, of zero, without a transaction, or of another order: refused', async () => {
    const h = await hold();
    await expectProviderError(
      provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 15001 }),
      'refused',
      /15000/,
    );
    await expectProviderError(provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 0 }), 'refused');
    await expectProviderError(
      provider().capture({ ...h.ref, transactionId: '', idempotencyKey: key(), amountCents: 100 }),
      'refused',
      /no such transaction/,
    );
    const other = await createRequest(t, { request_type: 'IMPRINT', amount: 10 });
    await expectProviderError(
      provider().capture({ ...h.ref, orderId: other.uuid, idempotencyKey: key(), amountCents: 100 }),
      'refused',
      /no such/,
    );
    assert.equal((await txn(t, h.transactionId))?.status, 'authorised');
  });

  test('twenty concurrent captures of one hold: exactly one succeeds', async () => {
    const h = await hold();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 15000 })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal((await txn(t, h.transactionId))?.captured_amount, 15000);
  });

  test('the same idempotency key twice is one operation: done once, the same answer', async () => {
    const h = await hold();
    const once = key();
    const first = await provider().capture({ ...h.ref, idempotencyKey: once, amountCents: 5000 });
    const again = await provider().capture({ ...h.ref, idempotencyKey: once, amountCents: 5000 });
    assert.deepEqual(again, first);
    assert.equal((await txn(t, h.transactionId))?.captured_amount, 5000);
    const refund = { ...h.ref, idempotencyKey: key(), amountCents: 1000 };
    const r1 = await provider().refund(refund);
    const r2 = await provider().refund(refund);
    assert.equal(r1.transactionId, r2.transactionId);
    assert.equal((await txn(t, h.transactionId))?.refunded_amount, 1000);
    const order = await provider().getOrder(h.id);
    assert.ok(order.keysKept);
    assert.ok(order.transactions.find((x) => x.id === h.transactionId)?.keys.includes(once));
  });

  test('release: an authorised hold is cancelled; releasing or capturing it again is refused', async () => {
    const h = await hold();
    await provider().release({ ...h.ref, idempotencyKey: key() });
    assert.equal((await txn(t, h.transactionId))?.status, 'cancelled');
    await expectProviderError(provider().release({ ...h.ref, idempotencyKey: key() }), 'refused', /cancelled/);
    await expectProviderError(
      provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 100 }),
      'refused',
      /cancelled/,
    );
  });

  test('release of a captured hold is refused', async () => {
    const h = await hold();
    await provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 15000 });
    await expectProviderError(provider().release({ ...h.ref, idempotencyKey: key() }), 'refused');
    assert.equal((await txn(t, h.transactionId))?.status, 'captured');
  });

  test('refund: partial then the rest of a captured hold; more than captured is refused', async () => {
    const h = await hold();
    await provider().capture({ ...h.ref, idempotencyKey: key(), amountCents: 10000 });
    await provider().refund({ ...h.ref, idempotencyKey: key(), amountCents: 3000 });
    assert.deepEqual(
      { status: (await txn(t, h.transactionId))?.status, refunded: (await txn(t, h.transactionId))?.refunded_amount },
      { status: 'captured', refunded: 3000 },
    );
    await expectProviderError(
      provider().refund({ ...h.ref, idempotencyKey: key(), amountCents: 7001 }),
      'refused',
      /7000/,
    );
    await provider().refund({ ...h.ref, idempotencyKey: key(), amountCents: 7000 });
    const done = await txn(t, h.transactionId);
    assert.equal(done?.status, 'refunded');
    assert.equal(done?.refunded_amount, 10000);
    const refunds = await t.db.query<{ amount: number; status: string }>(
      "SELECT amount, status FROM sandbox_transactions WHERE kind = 'refund' AND parent_id = $1 ORDER BY amount",
      [h.transactionId],
    );
    assert.deepEqual(refunds.rows, [
      { amount: 3000, status: 'refunded' },
      { amount: 7000, status: 'refunded' },
    ]);
    await expectProviderError(
      provider().refund({ ...h.ref, idempotencyKey: key(), amountCents: 1 }),
      'refused',
      /refunded/,
    );
  });

  test('refund of an authorised (not captured) hold is refused', async () => {
    const h = await hold();
    await expectProviderError(
      provider().refund({ ...h.ref, idempotencyKey: key(), amountCents: 100 }),
      'refused',
      /authorised/,
    );
  });

  test("refund of a guest's deposit payment, by the transaction the IPN recorded", async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 70 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
    const row = (
      await t.db.query<{ provider_transaction_id: string }>(
        'SELECT provider_transaction_id FROM payment_requests WHERE id = $1',
        [c.uuid],
      )
    ).rows[0];
    assert.ok(row?.provider_transaction_id);
    const ref = {
      orderId: c.uuid,
      idempotencyKey: key(),
      reference: c.reference,
      currency: 'EUR' as const,
      transactionId: row.provider_transaction_id,
    };
    await provider().refund({ ...ref, amountCents: 7000 });
    assert.equal((await txn(t, row.provider_transaction_id))?.status, 'refunded');
  });

  test('through the API: capture of an arranged AUTHORISED_TO_VALIDATE reaches the real hold', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      payload: { amount: 50 },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((await detail(t, c.uuid)).amount_captured, 50);
    const held = await t.db.query<{ status: string; captured_amount: number }>(
      "SELECT status, captured_amount FROM sandbox_transactions WHERE order_id = $1 AND kind = 'hold'",
      [c.uuid],
    );
    assert.deepEqual(held.rows, [{ status: 'captured', captured_amount: 5000 }]);
  });

  test('through the API: release cancels the real hold', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/release/` });
    assert.equal(r.statusCode, 200, r.body);
    const held = await t.db.query("SELECT status FROM sandbox_transactions WHERE order_id = $1 AND kind = 'hold'", [
      c.uuid,
    ]);
    assert.deepEqual(held.rows, [{ status: 'cancelled' }]);
  });

  test('through the API: a hold the sandbox already released makes capture a refusal, status unchanged', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    await t.db.query("UPDATE sandbox_transactions SET status = 'cancelled' WHERE order_id = $1", [c.uuid]);
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/` });
    assert.equal(r.statusCode, 402, r.body);
    assert.equal((await detail(t, c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
  });
});
