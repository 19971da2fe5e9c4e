import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Status } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, countRows, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';
const KEPT: Status[] = ['AUTHORISED_TO_VALIDATE', 'CAPTURED', 'REFUNDED'];
const DELETABLE: Status[] = ['NOT_INITIATED', 'PENDING', 'AUTHORISED', 'REFUSED', 'ERROR', 'CANCELLED', 'EXPIRED'];

describe(`DELETE /api/payment-requests/{uuid}/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const del = (uuid: string) => t.call({ method: 'DELETE', url: `${BASE}${uuid}/` });

  for (const status of DELETABLE) {
    test(`from ${status}: 200 {message} naming the reference; gone from detail, list and statuses; trail kept`, async () => {
      const ref = `DEL-${status}`;
      const c = await createRequest(t, { reservation_ref: ref });
      const keep = await createRequest(t, { reservation_ref: ref });
      if (status !== 'NOT_INITIATED') await arrangeStatus(t.db, c.uuid, status);
      const rowsBefore = await countRows(t.db);
      const r = await del(c.uuid);
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(Object.keys(r.json()), ['message']);
      assert.ok(r.json().message.includes(c.reference), r.json().message);
      assert.equal(await countRows(t.db), rowsBefore - 1);

      const d = await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` });
      assert.equal(d.statusCode, 404);
      assert.equal(d.json().error, `Payment request ${c.uuid} not found.`);
      const listed = (await t.call({ method: 'GET', url: `${BASE}?reservation_ref=${ref}` })).json() as {
        uuid: string;
      }[];
      assert.deepEqual(
        listed.map((x) => x.uuid),
        [keep.uuid],
      );
      const statuses = (await t.call({ method: 'GET', url: `${BASE}statuses/?refs=${ref}` })).json() as {
        uuid: string;
      }[];
      assert.deepEqual(
        statuses.map((x) => x.uuid),
        [keep.uuid],
      );
      // The history outlives the row.
      const h = await t.repos.paymentRequests.history(c.uuid);
      assert.equal(h[h.length - 1]?.to_status, 'DELETED');
      assert.equal(h[h.length - 1]?.from_status, status);
    });
  }

  for (const status of KEPT) {
    test(`from ${status}: 400 {error}, the request stays`, async () => {
      const c = await createRequest(t);
      await arrangeStatus(t.db, c.uuid, status);
      const r = await del(c.uuid);
      assert.equal(r.statusCode, 400);
      assert.equal(typeof r.json().error, 'string');
      assert.ok(r.json().error.includes(status), r.json().error);
      const d = await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` });
      assert.equal(d.statusCode, 200);
      assert.equal(d.json().status, status);
    });
  }

  test('a deleted request: a second delete, a cancel, a capture are 404 with the exact message', async () => {
    const c = await createRequest(t);
    assert.equal((await del(c.uuid)).statusCode, 200);
    for (const r of [
      await del(c.uuid),
      await t.call({ method: 'POST', url: `${BASE}${c.uuid}/cancel/` }),
      await t.call({ method: 'POST', url: `${BASE}${c.uuid}/capture/` }),
      await t.call({ method: 'POST', url: `${BASE}${c.uuid}/release/` }),
    ]) {
      assert.equal(r.statusCode, 404);
      assert.equal(r.json().error, `Payment request ${c.uuid} not found.`);
    }
  });

  test('concurrent deletes of one request: exactly one 200, the rest 404', async () => {
    const c = await createRequest(t);
    const rs = await Promise.all(Array.from({ length: 10 }, () => del(c.uuid)));
    const codes = rs.map((r) => r.statusCode);
    assert.equal(codes.filter((s) => s === 200).length, 1, codes.join(','));
    assert.ok(
      codes.every((s) => s === 200 || s === 404),
      codes.join(','),
    );
    const h = await t.repos.paymentRequests.history(c.uuid);
    assert.equal(h.filter((x) => x.to_status === 'DELETED').length, 1);
  });

  test('an unknown or malformed uuid is 404', async () => {
    const uuid = '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a';
    const r = await del(uuid);
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, `Payment request ${uuid} not found.`);
    assert.equal((await del('zzz')).statusCode, 404);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
