import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { sandboxOf } from '../helpers/providers.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp } from '../helpers/test-app.ts';

const ACCEPTED = '4242424242424242';
const FIELDS = [
  'amount',
  'captured_amount',
  'created_at',
  'currency',
  'expires_at',
  'id',
  'kind',
  'reason',
  'refunded_amount',
  'status',
  'transaction_number',
];

interface OrderView {
  order_id: string;
  transactions: Record<string, unknown>[];
}

/** The sandbox's order view as an integrator's script reads it: plain HTTP, the hotel's key. */
async function order(
  t: ListeningApp,
  id: string,
  headers: Record<string, string> = t.tenant.headers,
): Promise<{ status: number; body: OrderView; type: string | null }> {
  const r = await fetch(`${t.baseUrl}/sandbox/orders/${id}`, { headers });
  return { status: r.status, body: (await r.json()) as OrderView, type: r.headers.get('content-type') };
}

/**
 * A transaction without its id, number and times, which the test cannot know (the number is
 * checked to be six digits); holds' ends are checked apart.
 */
function shape(x: Record<string, unknown>) {
  const { id: _id, created_at: _at, expires_at: _end, reason: _why, transaction_number: number, ...rest } = x;
  assert.match(String(number), /^[0-9]{6}$/, 'a transaction number of six digits, as Lyra gives');
  return rest;
}

describe(`the sandbox's order view, GET /sandbox/orders/<uuid> (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
  });

  test('a paid DEPOSIT: one captured payment, amounts in minor units', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 123.45 });
    const before = Date.now();
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED })).status, 303);
    const r = await order(t, c.uuid);
    assert.equal(r.status, 200);
    assert.match(r.type ?? '', /application\/json/);
    assert.equal(r.body.order_id, c.uuid);
    assert.equal(r.body.transactions.length, 1);
    const [payment] = r.body.transactions as [Record<string, unknown>];
    assert.deepEqual(Object.keys(payment).sort(), FIELDS);
    assert.match(String(payment.id), /^txn_/);
    assert.deepEqual(shape(payment), {
      kind: 'payment',
      status: 'captured',
      amount: 12345,
      currency: 'EUR',
      captured_amount: 12345,
      refunded_amount: 0,
    });
    const at = Date.parse(String(payment.created_at));
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, String(payment.created_at));
  });

  test('a refusal, then a payment on a new form, given back by payreq: every transaction, oldest first', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 20 });
    await submitCard(await checkoutForm(t, c.uuid), { number: '4000000000000002' });
    // The sandbox takes a fresh attempt as a provider would; payreq, whose request is REFUSED,
    // refunds it while handling the notification, before the guest is redirected.
    await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED });
    const r = await order(t, c.uuid);
    assert.deepEqual(r.body.transactions.map(shape), [
      { kind: 'payment', status: 'refused', amount: 2000, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
      {
        kind: 'payment',
        status: 'refunded',
        amount: 2000,
        currency: 'EUR',
        captured_amount: 2000,
        refunded_amount: 2000,
      },
      { kind: 'refund', status: 'refunded', amount: 2000, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
    ]);
  });

  test('a partial refund: what is left to refund shows on the payment, the refund is its own transaction', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED });
    const [payment] = (await order(t, c.uuid)).body.transactions as [Record<string, unknown>];
    await sandboxOf(t.app).refund({
      orderId: c.uuid,
      reference: c.reference,
      currency: 'EUR',
      idempotencyKey: randomUUID(),
      transactionId: String(payment.id),
      amountCents: 1250,
    });
    const r = await order(t, c.uuid);
    assert.deepEqual(r.body.transactions.map(shape), [
      {
        kind: 'payment',
        status: 'captured',
        amount: 5000,
        currency: 'EUR',
        captured_amount: 5000,
        refunded_amount: 1250,
      },
      { kind: 'refund', status: 'refunded', amount: 1250, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
    ]);
  });

  test('an IMPRINT: the verification, then an open hold (authorised), then what a capture took', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 150 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED })).status, 303);
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const held = await order(t, c.uuid);
    assert.equal(held.body.transactions[0]?.expires_at, null, 'a verification has no end');
    assert.deepEqual(held.body.transactions.map(shape), [
      { kind: 'verification', status: 'accepted', amount: 0, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
      { kind: 'hold', status: 'authorised', amount: 15000, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
    ]);
    const cap = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      payload: { amount: 100 },
    });
    assert.equal(cap.statusCode, 200, cap.body);
    const captured = await order(t, c.uuid);
    assert.deepEqual(shape(captured.body.transactions[1] as Record<string, unknown>), {
      kind: 'hold',
      status: 'captured',
      amount: 15000,
      currency: 'EUR',
      captured_amount: 10000,
      refunded_amount: 0,
    });
  });

  test('a released hold is cancelled, nothing captured', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 80 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const rel = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/release/` });
    assert.equal(rel.statusCode, 200, rel.body);
    const r = await order(t, c.uuid);
    assert.deepEqual(r.body.transactions.map(shape), [
      { kind: 'hold', status: 'cancelled', amount: 8000, currency: 'EUR', captured_amount: 0, refunded_amount: 0 },
    ]);
  });

  test('an order of the hotel the sandbox never saw: 200 and no transactions; a uuid of no order: 404', async () => {
    const id = (await createRequest(t, { request_type: 'DEPOSIT', amount: 8 })).uuid;
    const r = await order(t, id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { order_id: id, transactions: [] });
    assert.equal((await order(t, randomUUID())).status, 404);
  });

  test('a uuid in capitals names the same order', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 7 });
    await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED });
    const r = await order(t, c.uuid.toUpperCase());
    assert.equal(r.body.order_id, c.uuid);
    assert.equal(r.body.transactions.length, 1);
  });

  for (const bad of ['not-a-uuid', '123', `${randomUUID()}x`, "1' OR '1'='1", '%00', 'x'.repeat(150)]) {
    test(`not a uuid (${bad.slice(0, 20)}): 404 JSON, never 400 or 500`, async () => {
      const r = await fetch(`${t.baseUrl}/sandbox/orders/${encodeURIComponent(bad)}`, { headers: t.tenant.headers });
      assert.equal(r.status, 404);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      const body = (await r.json()) as { code: string; error: string };
      assert.equal(typeof body.error, 'string');
      assert.equal(typeof body.code, 'string');
    });
  }

  // Issue 47: an order id opens the guest's pages (name, masked card, amount); the view told
  // anyone an order's transactions. Now the hotel's own key, in development too.
  test("the hotel's key only: none or a bad one 401, another hotel's 404 with nothing of the order", async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 11 });
    await submitCard(await checkoutForm(t, c.uuid), { number: ACCEPTED });
    const none = await order(t, c.uuid, {});
    assert.equal(none.status, 401);
    assert.equal((none.body as unknown as { code: string }).code, 'unauthorized');
    assert.equal((await order(t, c.uuid, { 'x-api-key': 'pk_nope.nope' })).status, 401);
    const other = await t.newTenant('Hotel Elsewhere');
    const theirs = await order(t, c.uuid, other.headers);
    assert.equal(theirs.status, 404);
    assert.equal((theirs.body as unknown as { code: string }).code, 'order_not_found');
    assert.equal(theirs.body.transactions, undefined);
    // An order of no hotel at all: the same answer.
    assert.equal((await order(t, randomUUID())).status, 404);
    assert.equal((await order(t, c.uuid)).body.transactions.length, 1);
  });

  test('read-only: POST, PUT and DELETE are refused, 405 with Allow', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 9 });
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await fetch(`${t.baseUrl}/sandbox/orders/${c.uuid}`, { method, headers: t.tenant.headers });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.get('allow'), 'GET, HEAD');
      assert.equal(((await r.json()) as { code: string }).code, 'method_not_allowed');
    }
  });
});

describe(`the order view exists only while the sandbox is the provider (${ENGINE})`, () => {
  test('another provider: no /sandbox/ routes at all', async () => {
    const t = await startTestApp({ provider: (real) => ({ ...real, name: 'other' }) });
    try {
      const r = await t.app.inject({ method: 'GET', url: `/sandbox/orders/${randomUUID()}` });
      assert.equal(r.statusCode, 404);
      assert.equal(r.json().code, 'route_not_found');
    } finally {
      await t.close();
    }
  });
});
