import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STATUSES, type Status } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider } from '../helpers/providers.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`POST capture/ and release/ (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  before(async () => {
    t = await startTestApp({ provider: provider.provider });
  });
  after(() => t.close());

  async function held(amount = 150) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c;
  }
  const post = (uuid: string, action: 'capture' | 'release', payload?: unknown) =>
    t.call({
      method: 'POST',
      url: `${BASE}${uuid}/${action}/`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const detail = async (uuid: string) => (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();

  test('capture with no body: 200 {uuid, reference, status: CAPTURED}; amount_captured = amount; provider asked once for it', async () => {
    const c = await held(150);
    const r = await post(c.uuid, 'capture');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'CAPTURED' });
    const d = await detail(c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 150);
    assert.equal(d.order_cycle, 'CLOSED');
    const calls = provider.calls.filter((x) => x.ref.paymentRequestId === c.uuid);
    assert.deepEqual(
      calls.map((x) => [x.op, x.amountCents]),
      [['capture', 15000]],
    );
    const h = await t.repos.paymentRequests.history(c.uuid);
    const last = h[h.length - 1];
    assert.equal(last?.from_status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(last?.to_status, 'CAPTURED');
    assert.equal(last?.source, 'api');
  });

  test('capture with {} or null captures the full amount too', async () => {
    for (const body of ['{}', 'null']) {
      const c = await held(75.5);
      const r = await t.call({
        method: 'POST',
        url: `${BASE}${c.uuid}/capture/`,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(r.statusCode, 200, `${body}: ${r.body}`);
      assert.equal((await detail(c.uuid)).amount_captured, 75.5);
    }
  });

  test('partial capture {"amount": 40} captures 40 of 150', async () => {
    const c = await held(150);
    const r = await post(c.uuid, 'capture', { amount: 40 });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'CAPTURED' });
    const d = await detail(c.uuid);
    assert.equal(d.amount, 150);
    assert.equal(d.amount_captured, 40);
    assert.equal(provider.calls.find((x) => x.ref.paymentRequestId === c.uuid)?.amountCents, 4000);
  });

  test('capture of exactly the held amount, and of 0.01, are accepted', async () => {
    const a = await held(99.99);
    assert.equal((await post(a.uuid, 'capture', { amount: 99.99 })).statusCode, 200);
    assert.equal((await detail(a.uuid)).amount_captured, 99.99);
    const b = await held(99.99);
    assert.equal((await post(b.uuid, 'capture', { amount: 0.01 })).statusCode, 200);
    assert.equal((await detail(b.uuid)).amount_captured, 0.01);
  });

  test('capture above the held amount is a 400; nothing moves, the claim is given back and a valid capture still works', async () => {
    const c = await held(150);
    const before = provider.count('capture', c.uuid);
    const r = await post(c.uuid, 'capture', { amount: 150.01 });
    assert.equal(r.statusCode, 400);
    assert.equal(typeof r.json().error, 'string');
    assert.equal(provider.count('capture', c.uuid), before, 'the provider was not asked');
    const d = await detail(c.uuid);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(d.amount_captured, 0);
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, c.uuid))?.pending_action, null);
    assert.equal((await post(c.uuid, 'capture', { amount: 150 })).statusCode, 200);
  });

  test('capture amount 0, negative, with 3 decimals, or not a number is a 422 naming amount; nothing moves', async () => {
    const c = await held(150);
    for (const amount of [0, -1, 10.005, 0.001, '40', true, [40]]) {
      const r = await post(c.uuid, 'capture', { amount });
      assert.equal(r.statusCode, 422, `amount ${JSON.stringify(amount)}: ${r.body}`);
      assert.equal(r.json().error, 'Validation failed');
      // One precise detail, not the noise of a schema union.
      assert.deepEqual(
        (r.json().details as { field: string }[]).map((x) => x.field),
        ['amount'],
        `${JSON.stringify(amount)}: ${r.body}`,
      );
    }
    assert.equal(provider.count('capture', c.uuid), 0);
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
  });

  test('a capture body that is not an object is a 422 about the body', async () => {
    const c = await held(150);
    for (const body of ['[1]', '"all"', '40', 'true']) {
      const r = await t.call({
        method: 'POST',
        url: `${BASE}${c.uuid}/capture/`,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(r.statusCode, 422, body);
      assert.deepEqual(
        (r.json().details as { field: string }[]).map((x) => x.field),
        ['body'],
      );
    }
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
  });

  test('release: 200 {uuid, reference, status: CANCELLED}; nothing captured; provider asked once', async () => {
    const c = await held(150);
    const r = await post(c.uuid, 'release');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'CANCELLED' });
    const d = await detail(c.uuid);
    assert.equal(d.status, 'CANCELLED');
    assert.equal(d.amount_captured, 0);
    assert.equal(provider.count('release', c.uuid), 1);
    assert.equal(provider.count('capture', c.uuid), 0);
    const h = await t.repos.paymentRequests.history(c.uuid);
    assert.equal(h[h.length - 1]?.to_status, 'CANCELLED');
  });

  for (const status of STATUSES.filter((s) => s !== 'AUTHORISED_TO_VALIDATE') as Status[]) {
    test(`capture and release from ${status}: 400 {error}, status unchanged, provider not asked`, async () => {
      const c = await createRequest(t);
      await arrangeStatus(t.db, c.uuid, status);
      for (const action of ['capture', 'release'] as const) {
        const r = await post(c.uuid, action);
        assert.equal(r.statusCode, 400, `${action} from ${status}`);
        assert.equal(typeof r.json().error, 'string');
        assert.ok(r.json().error.length > 0);
      }
      assert.equal((await detail(c.uuid)).status, status);
      assert.equal(provider.count('capture', c.uuid) + provider.count('release', c.uuid), 0);
    });
  }

  test('a second capture after a capture is a 400', async () => {
    const c = await held();
    assert.equal((await post(c.uuid, 'capture')).statusCode, 200);
    assert.equal((await post(c.uuid, 'capture')).statusCode, 400);
    assert.equal((await post(c.uuid, 'release')).statusCode, 400);
    assert.equal(provider.count('capture', c.uuid), 1);
    assert.equal(provider.count('release', c.uuid), 0);
  });

  test('unknown uuid: 404 with the exact message on both', async () => {
    const uuid = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
    for (const action of ['capture', 'release'] as const) {
      const r = await post(uuid, action);
      assert.equal(r.statusCode, 404);
      assert.equal(r.json().error, `Payment request ${uuid} not found.`);
    }
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
