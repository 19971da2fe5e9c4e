import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const URL_ = '/api/payment-requests/statuses/';
const STATUS_FIELDS = [
  'amount',
  'amount_captured',
  'order_cycle',
  'request_type',
  'reference',
  'reservation_ref',
  'status',
  'uuid',
].sort();

interface StatusItem {
  uuid: string;
  reference: string;
  reservation_ref: string;
  request_type: string;
  status: string;
  order_cycle: string;
  amount: number;
  amount_captured: number;
}

describe(`GET /api/payment-requests/statuses/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const get = (refs: string | undefined) =>
    t.call({ method: 'GET', url: refs === undefined ? URL_ : `${URL_}?refs=${encodeURIComponent(refs)}` });

  test('returns exactly the fields of a status, with the values of the request', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 120.5, reservation_ref: 'ST-1' });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 4000 });
    const r = await get('ST-1');
    assert.equal(r.statusCode, 200);
    const rows = r.json() as StatusItem[];
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0] as object).sort(), STATUS_FIELDS);
    assert.deepEqual(rows[0], {
      uuid: c.uuid,
      reference: c.reference,
      reservation_ref: 'ST-1',
      request_type: 'IMPRINT',
      status: 'CAPTURED',
      order_cycle: 'CLOSED',
      amount: 120.5,
      amount_captured: 40,
    });
  });

  test('refs is required: missing, empty or only commas is a 400 {error}', async () => {
    for (const refs of [undefined, '', ',', ' , ,']) {
      const r = await get(refs);
      assert.equal(r.statusCode, 400, `refs=${refs}`);
      assert.equal(r.json().error, 'Query parameter refs is required');
    }
  });

  test('unknown references are simply absent; known ones are found among them', async () => {
    const c = await createRequest(t, { reservation_ref: 'ST-KNOWN' });
    assert.deepEqual((await get('NOPE-1,NOPE-2')).json(), []);
    const rows = (await get('NOPE-1,ST-KNOWN,NOPE-2')).json() as StatusItem[];
    assert.deepEqual(
      rows.map((x) => x.uuid),
      [c.uuid],
    );
  });

  test('several requests of one reservation all appear, for each reservation asked', async () => {
    const a1 = await createRequest(t, { request_type: 'IMPRINT', reservation_ref: 'ST-MULTI-A' });
    const a2 = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, reservation_ref: 'ST-MULTI-A' });
    const a3 = await createRequest(t, { request_type: 'DEPOSIT', amount: 60, reservation_ref: 'ST-MULTI-A' });
    const b1 = await createRequest(t, { reservation_ref: 'ST-MULTI-B' });
    await createRequest(t, { reservation_ref: 'ST-MULTI-C' });
    await arrangeStatus(t.db, a3.uuid, 'CANCELLED');
    const rows = (await get('ST-MULTI-A, ST-MULTI-B')).json() as StatusItem[];
    assert.deepEqual(new Set(rows.map((x) => x.uuid)), new Set([a1.uuid, a2.uuid, a3.uuid, b1.uuid]));
    assert.equal(rows.length, 4);
    const cancelled = rows.find((x) => x.uuid === a3.uuid);
    assert.equal(cancelled?.status, 'CANCELLED');
    assert.equal(cancelled?.order_cycle, 'CLOSED');
  });

  test('a reference repeated in refs lists its requests once', async () => {
    const c = await createRequest(t, { reservation_ref: 'ST-DUP' });
    const rows = (await get('ST-DUP,ST-DUP,ST-DUP')).json() as StatusItem[];
    assert.deepEqual(
      rows.map((x) => x.uuid),
      [c.uuid],
    );
  });

  test('references are matched exactly: no prefix, case or pattern matching', async () => {
    await createRequest(t, { reservation_ref: 'ST-EXACT-123' });
    for (const refs of ['ST-EXACT', 'st-exact-123', 'ST-EXACT-%', 'ST-EXACT-___']) {
      assert.deepEqual((await get(refs)).json(), [], refs);
    }
  });

  test('a NUL in refs is a 422 naming refs, not a database error', async () => {
    const r = await t.call({ method: 'GET', url: `${URL_}?refs=A,B%00C` });
    assert.equal(r.statusCode, 422);
    assert.equal(r.json().code, 'validation_failed', 'the code the document lists for this 422');
    assert.deepEqual(
      (r.json().details as { field: string }[]).map((d) => d.field),
      ['refs'],
    );
  });

  test('at most 500 references: 500 is accepted, 501 is a 400', async () => {
    const c = await createRequest(t, { reservation_ref: 'R-499' });
    const refs = (n: number) => Array.from({ length: n }, (_, i) => `R-${i}`).join(',');
    const ok = await get(refs(500));
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(
      (ok.json() as StatusItem[]).map((x) => x.uuid),
      [c.uuid],
    );
    const tooMany = await get(refs(501));
    assert.equal(tooMany.statusCode, 400);
    assert.equal(tooMany.json().error, 'At most 500 references are allowed in refs');
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
