import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ProviderOrder } from '../../src/providers/index.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { sandboxOf } from '../helpers/providers.ts';
import { checkoutForm, postIpn, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const GOOD = { number: '4242424242424242' };
const REFUSED = { number: '4000000000000002' };

/** What the provider kept of an order: taken less given back, over its payments and holds. */
function net(order: ProviderOrder): number {
  return order.transactions
    .filter((x) => x.kind === 'payment' || x.kind === 'hold')
    .reduce((sum, x) => sum + x.capturedAmount - x.refundedAmount, 0);
}

// A guest's card form outlives the request's ability to take money: a second tab, the back
// button, a form opened before the hotel cancelled or deleted. The provider takes the money;
// payreq must never apply it, must give it back, and must show it.
describe(`money that arrives where it should not (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(() => t.close());

  const order = (id: string) => sandboxOf(t.app).getOrder(id);
  const incidents = async (id: string) =>
    (await t.repos.paymentRequests.history(id)).filter((h) => h.to_status === 'INCIDENT');
  const guestResult = async (id: string) => (await fetch(`${t.baseUrl}/payment/${id}/result/`)).text();

  test('a good card posted after a refusal: refunded, net 0, an incident, the guest told plainly', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 100, language: 'en' });
    const first = await checkoutForm(t, c.uuid);
    const second = await checkoutForm(t, c.uuid); // the same page, opened twice (back button, second tab)
    assert.equal((await submitCard(first, REFUSED)).status, 303);
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid))?.status, 'REFUSED');

    assert.equal((await submitCard(second, GOOD)).status, 303);
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.deepEqual([row?.status, row?.amount_captured], ['REFUSED', 0]);
    const o = await order(c.uuid);
    assert.equal(net(o), 0, JSON.stringify(o));
    assert.ok(o.transactions.some((x) => x.kind === 'refund' && x.amount === 10000));
    const found = await incidents(c.uuid);
    assert.equal(found.length, 2, 'the incident, then its give-back');
    assert.match(String(found[0]?.detail?.incident), /REFUSED/);
    assert.equal(found[1]?.detail?.given_back, 'refund');
    const page = await guestResult(c.uuid);
    assert.match(page, /can no longer be paid/);
    assert.match(page, /nothing was kept/);
    const check = await t.app.payreq.reconciler.checkRequest(c.uuid);
    assert.equal(check, undefined);
  });

  test("a form opened before the hotel's cancel: the payment is given back", async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 42.5, language: 'fr' });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/cancel/` })).statusCode, 200);
    assert.equal((await submitCard(form, GOOD)).status, 303);
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid))?.status, 'CANCELLED');
    assert.equal(net(await order(c.uuid)), 0);
    assert.equal((await incidents(c.uuid)).length, 2);
    assert.match(await guestResult(c.uuid), /ne peut plus être payée/);
  });

  test('a form opened before the request was deleted: the payment is given back, the trail kept', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 30 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await t.call({ method: 'DELETE', url: `/api/payment-requests/${c.uuid}/` })).statusCode, 200);
    assert.equal((await submitCard(form, GOOD)).status, 303);
    assert.equal(net(await order(c.uuid)), 0);
    const trail = (await t.repos.paymentRequests.history(c.uuid)).map((h) => h.to_status);
    assert.deepEqual(trail, ['NOT_INITIATED', 'DELETED', 'INCIDENT', 'INCIDENT']);
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined);
  });

  test('a card registered on a cancelled imprint is voided: the card leaves the vault', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 200 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/cancel/` })).statusCode, 200);
    assert.equal((await submitCard(form, GOOD)).status, 303);
    const o = await order(c.uuid);
    assert.deepEqual(
      o.transactions.map((x) => [x.kind, x.status]),
      [['verification', 'cancelled']],
    );
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
    assert.deepEqual([row?.status, row?.masked_pan], ['CANCELLED', '']);
    const found = await incidents(c.uuid);
    assert.equal(found.at(-1)?.detail?.given_back, 'void');
  });

  test('a paid notification of the wrong amount or currency is not applied, and given back', async () => {
    for (const [amount, currency] of [
      [1, 'EUR'],
      [10000, 'USD'],
    ] as const) {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 100 });
      // What a misbehaving provider did: it took `amount` `currency` for this order.
      const txn = `txn_${randomUUID().replaceAll('-', '')}`;
      await t.db.query(
        `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, captured_amount, currency)
         VALUES ($1, $2, 'payment', 'captured', $3, $3, $4)`,
        [txn, c.uuid, amount, currency],
      );
      const body = JSON.stringify({
        event_id: `evt_${randomUUID()}`,
        order_id: c.uuid,
        outcome: 'paid',
        transaction_id: txn,
        amount,
        currency,
        masked_pan: '424242XXXXXX4242',
        expiry_month: 12,
        expiry_year: 2030,
        created_at: new Date().toISOString(),
      });
      const r = await postIpn(t, body);
      assert.equal(r.status, 200, r.body);
      assert.equal(JSON.parse(r.body).status, 'incident');
      const row = await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid);
      assert.deepEqual([row?.status, row?.amount_captured], ['NOT_INITIATED', 0]);
      assert.equal(net(await order(c.uuid)), 0, `${amount} ${currency} given back`);
      const found = await incidents(c.uuid);
      assert.match(String(found[0]?.detail?.incident), /amount|currency/);
    }
  });

  test('a give-back the provider could not make is retried by reconcile', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 55 });
    const form = await checkoutForm(t, c.uuid);
    assert.equal((await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/cancel/` })).statusCode, 200);
    assert.equal((await submitCard(form, GOOD)).status, 303);
    const taken = (await order(c.uuid)).transactions.find((x) => x.kind === 'payment');
    assert.ok(taken);
    // Undo the automatic give-back as if it had failed: the refund never happened.
    await t.db.query("DELETE FROM sandbox_transactions WHERE order_id = $1 AND kind = 'refund'", [c.uuid]);
    await t.db.query("DELETE FROM sandbox_operations WHERE order_id = $1 AND operation = 'refund'", [c.uuid]);
    await t.db.query("UPDATE sandbox_transactions SET status = 'captured', refunded_amount = 0 WHERE id = $1", [
      taken.id,
    ]);
    await t.db.query("UPDATE money_ledger SET state = 'failed' WHERE payment_request_id = $1 AND kind = 'refund'", [
      c.uuid,
    ]);
    assert.equal(net(await order(c.uuid)), 5500);
    const mismatch = await t.app.payreq.reconciler.checkRequest(c.uuid);
    assert.match(String(mismatch?.problem), /5500/);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.ok(r.given_back >= 1, JSON.stringify(r));
    assert.equal(net(await order(c.uuid)), 0);
  });
});
