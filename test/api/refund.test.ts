import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

// The refund endpoint is an addition to the integration contract (which leaves refunds to the
// back office): the same command, rules, ledger and in-doubt handling as the back office's.
describe(`POST refund/ (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  /** A request whose hold was captured through the API: money the provider really holds. */
  async function captured(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await post(c.uuid, 'capture');
    assert.equal(r.statusCode, 200, r.body);
    return c;
  }
  const post = (uuid: string, action: string, payload?: object, key?: string) =>
    t.call({
      method: 'POST',
      url: `${BASE}${uuid}/${action}/`,
      ...(payload ? { payload } : {}),
      ...(key ? { headers: { ...t.tenant.headers, 'idempotency-key': key } } : {}),
    });
  const detail = async (uuid: string) => (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();
  const refundsAtProvider = (uuid: string) =>
    provider.calls.filter((c) => c.op === 'refund' && c.ref.paymentRequestId === uuid).map((c) => c.amountCents);
  /**
   * The request's event types once the feed shows `count` of them: the feed shows an event only
   * when every older transaction on the database server has ended, so another test's open
   * transaction can hold it back a moment.
   */
  const eventTypes = (uuid: string, count: number) =>
    eventually(async () => {
      const r = await t.call({ method: 'GET', url: '/api/events/?limit=1000' });
      assert.equal(r.statusCode, 200, r.body);
      const types = (r.json() as { type: string; data: { uuid: string } }[])
        .filter((e) => e.data.uuid === uuid)
        .map((e) => e.type);
      return types.length >= count ? types : undefined;
    }, `${count} events of ${uuid} in the feed`);

  test('no body refunds all that was captured: 200 REFUNDED, one call to the provider, history by the API key', async () => {
    const c = await captured(120.5);
    const r = await post(c.uuid, 'refund');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'REFUNDED' });
    const d = await detail(c.uuid);
    assert.deepEqual([d.status, d.amount_captured, d.amount_refunded], ['REFUNDED', 120.5, 120.5]);
    assert.deepEqual(refundsAtProvider(c.uuid), [12050]);
    const last = (await t.repos.paymentRequests.history(c.uuid)).at(-1);
    assert.deepEqual([last?.from_status, last?.to_status, last?.source], ['CAPTURED', 'REFUNDED', 'api']);
  });

  test('capture then two partial refunds then the rest: each movement is its own event, never a second captured', async () => {
    const c = await captured(100);
    assert.equal((await post(c.uuid, 'refund', { amount: 30 })).statusCode, 200);
    const mid = await post(c.uuid, 'refund', { amount: 20.25 });
    assert.equal(mid.statusCode, 200, mid.body);
    assert.equal(mid.json().status, 'CAPTURED');
    assert.equal((await detail(c.uuid)).amount_refunded, 50.25);
    const last = await post(c.uuid, 'refund');
    assert.equal(last.json().status, 'REFUNDED');
    assert.deepEqual(refundsAtProvider(c.uuid), [3000, 2025, 4975]);
    assert.deepEqual(await eventTypes(c.uuid, 5), [
      'payment_request.not_initiated',
      'payment_request.captured',
      'payment_request.partially_refunded',
      'payment_request.partially_refunded',
      'payment_request.refunded',
    ]);
  });

  test('a refund above what is left is 400 refund_amount_invalid naming what is left; nothing moves', async () => {
    const c = await captured(60);
    assert.equal((await post(c.uuid, 'refund', { amount: 10 })).statusCode, 200);
    const r = await post(c.uuid, 'refund', { amount: 50.01 });
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().code, 'refund_amount_invalid');
    assert.equal(r.json().refundable_amount, 50);
    assert.deepEqual(refundsAtProvider(c.uuid), [1000]);
    assert.equal((await detail(c.uuid)).amount_refunded, 10);
  });

  test('a refund of nothing captured is 400 invalid_status with allowed; the provider is not called', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 80 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    const r = await post(c.uuid, 'refund');
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().code, 'invalid_status');
    assert.deepEqual(r.json().allowed, ['CAPTURED']);
    assert.deepEqual(refundsAtProvider(c.uuid), []);
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
  });

  test('bad bodies are 422 and change nothing', async () => {
    const c = await captured(40);
    for (const body of [{ amount: 0 }, { amount: -5 }, { amount: '10' }, { amount: 10.001 }]) {
      const r = await post(c.uuid, 'refund', body);
      assert.equal(r.statusCode, 422, `${JSON.stringify(body)}: ${r.body}`);
    }
    assert.deepEqual(refundsAtProvider(c.uuid), []);
    assert.equal((await detail(c.uuid)).amount_refunded, 0);
  });

  test('a replay with the same Idempotency-Key answers the first result and refunds once', async () => {
    const c = await captured(90);
    const first = await post(c.uuid, 'refund', { amount: 15 }, 'pms-refund-1');
    const again = await post(c.uuid, 'refund', { amount: 15 }, 'pms-refund-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual([again.statusCode, again.body], [first.statusCode, first.body]);
    assert.deepEqual(refundsAtProvider(c.uuid), [1500]);
    assert.equal((await detail(c.uuid)).amount_refunded, 15);
  });

  test('a lost answer is 504 outcome_unknown; the retry under the same key is 200 without a second refund', async () => {
    const c = await captured(70);
    provider.loseAnswers(true);
    let first: Awaited<ReturnType<typeof post>>;
    try {
      first = await post(c.uuid, 'refund', { amount: 25 }, 'pms-refund-lost');
    } finally {
      provider.loseAnswers(false);
    }
    assert.equal(first.statusCode, 504, first.body);
    assert.equal(first.json().code, 'outcome_unknown');
    assert.equal((await detail(c.uuid)).amount_refunded, 0, 'not counted while in doubt');

    // Another refund first settles the one in doubt by the provider's view (it happened), then
    // goes ahead on what is left.
    const other = await post(c.uuid, 'refund', { amount: 5 });
    assert.equal(other.statusCode, 200, other.body);
    assert.equal((await detail(c.uuid)).amount_refunded, 30);

    // The PMS's retry of the lost call is answered, not sent again.
    const retry = await post(c.uuid, 'refund', { amount: 25 }, 'pms-refund-lost');
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().status, 'CAPTURED');
    assert.deepEqual(refundsAtProvider(c.uuid), [2500, 500]);
    assert.equal((await detail(c.uuid)).amount_refunded, 30);
  });

  test('another tenant cannot refund: 404, nothing moves', async () => {
    const c = await captured(30);
    const other = await t.newTenant('Autre Hôtel');
    const r = await t.call({ method: 'POST', url: `${BASE}${c.uuid}/refund/`, tenant: other });
    assert.equal(r.statusCode, 404, r.body);
    assert.deepEqual(refundsAtProvider(c.uuid), []);
  });
});
