import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Status } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';
const CANCELLABLE: Status[] = ['NOT_INITIATED', 'PENDING', 'ERROR'];
const TERMINAL: Status[] = ['CAPTURED', 'REFUSED', 'CANCELLED', 'EXPIRED', 'REFUNDED'];
const HELD: Status[] = ['AUTHORISED', 'AUTHORISED_TO_VALIDATE'];

describe(`POST /api/payment-requests/{uuid}/cancel/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const cancel = (uuid: string) => t.call({ method: 'POST', url: `${BASE}${uuid}/cancel/` });
  const detail = async (uuid: string) => (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();

  for (const from of CANCELLABLE) {
    test(`from ${from}: 200 with uuid, reference and status CANCELLED only; stored, and written to the history`, async () => {
      const c = await createRequest(t);
      if (from !== 'NOT_INITIATED') await arrangeStatus(t.db, c.uuid, from);
      const r = await cancel(c.uuid);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'CANCELLED' });
      const d = await detail(c.uuid);
      assert.equal(d.status, 'CANCELLED');
      assert.equal(d.order_cycle, 'CLOSED');
      const h = await t.repos.paymentRequests.history(c.uuid);
      const last = h[h.length - 1];
      assert.equal(last?.from_status, from);
      assert.equal(last?.to_status, 'CANCELLED');
      assert.equal(last?.source, 'api');
      assert.equal(last?.actor, `key:${t.tenant.prefix}`);
    });
  }

  for (const from of TERMINAL) {
    test(`from terminal ${from}: 400 with the exact spec message, nothing changes`, async () => {
      const c = await createRequest(t);
      await arrangeStatus(t.db, c.uuid, from);
      const historyBefore = (await t.repos.paymentRequests.history(c.uuid)).length;
      const r = await cancel(c.uuid);
      assert.equal(r.statusCode, 400);
      assert.equal(r.json().error, 'Cannot cancel a payment request in terminal status');
      // As the error catalogue promises for every invalid_status: what it is, and what would do.
      assert.equal(r.json().code, 'invalid_status');
      assert.equal(r.json().status, from);
      assert.deepEqual(r.json().allowed, ['NOT_INITIATED', 'PENDING', 'ERROR']);
      assert.equal((await detail(c.uuid)).status, from);
      assert.equal((await t.repos.paymentRequests.history(c.uuid)).length, historyBefore);
    });
  }

  for (const from of HELD) {
    test(`from ${from}: 400 {error} naming the status; a hold is released, not cancelled`, async () => {
      const c = await createRequest(t);
      await arrangeStatus(t.db, c.uuid, from);
      const r = await cancel(c.uuid);
      assert.equal(r.statusCode, 400);
      assert.equal(typeof r.json().error, 'string');
      assert.ok(r.json().error.includes(from), r.json().error);
      assert.equal((await detail(c.uuid)).status, from);
    });
  }

  test('a second cancel is the terminal-status 400', async () => {
    const c = await createRequest(t);
    assert.equal((await cancel(c.uuid)).statusCode, 200);
    const again = await cancel(c.uuid);
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error, 'Cannot cancel a payment request in terminal status');
  });

  test('concurrent cancels of one request: exactly one 200 and one history row', async () => {
    const c = await createRequest(t);
    const rs = await Promise.all(Array.from({ length: 15 }, () => cancel(c.uuid)));
    const codes = rs.map((r) => r.statusCode);
    assert.equal(codes.filter((s) => s === 200).length, 1, codes.join(','));
    assert.ok(
      codes.every((s) => s === 200 || s === 400),
      codes.join(','),
    );
    const h = await t.repos.paymentRequests.history(c.uuid);
    assert.equal(h.filter((x) => x.to_status === 'CANCELLED').length, 1);
  });

  test('an unknown uuid is 404 with the exact message; a non-UUID too', async () => {
    const uuid = '0b7d5a4e-1111-4c2b-8d3e-2f1a9c8b7d6e';
    const r = await cancel(uuid);
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, `Payment request ${uuid} not found.`);
    assert.equal((await cancel('nope')).statusCode, 404);
  });

  test('a body sent with the cancel is ignored', async () => {
    const c = await createRequest(t);
    const r = await t.call({ method: 'POST', url: `${BASE}${c.uuid}/cancel/`, payload: { reason: 'guest asked' } });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { uuid: c.uuid, reference: c.reference, status: 'CANCELLED' });
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
