import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  auditResponses,
  countRows,
  createBody,
  createRequest,
  ENGINE,
  startTestApp,
  type TenantWithKey,
  type TestApp,
} from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

describe(`Idempotency-Key (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const create = (body: unknown, key?: string, tenant?: TenantWithKey) =>
    t.call({
      method: 'POST',
      url: BASE,
      payload: body as object,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      ...(tenant ? { tenant } : {}),
    });
  const rowsFor = async (ref: string, tenantId = t.tenant.tenantId) =>
    (
      await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1 AND reservation_ref = $2',
        [tenantId, ref],
      )
    ).rows[0]?.n;

  test('the same key and body replays the first response: same uuid and reference, replay header, one row', async () => {
    const body = createBody({ reservation_ref: 'IDEM-1' });
    const first = await create(body, 'key-1');
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await create(body, 'key-1');
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    assert.ok(second.headers['x-request-id']);
    assert.notEqual(second.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(await rowsFor('IDEM-1'), 1);
  });

  test('without a key, the same body twice creates two requests (the control case)', async () => {
    const body = createBody({ reservation_ref: 'IDEM-NOKEY' });
    const a = (await create(body)).json();
    const b = (await create(body)).json();
    assert.notEqual(a.uuid, b.uuid);
    assert.equal(await rowsFor('IDEM-NOKEY'), 2);
  });

  test('the same key with another body is a 422, and creates nothing', async () => {
    assert.equal((await create(createBody({ reservation_ref: 'IDEM-2' }), 'key-2')).statusCode, 201);
    const before = await countRows(t.db);
    const r = await create(createBody({ reservation_ref: 'IDEM-2', amount: 151 }), 'key-2');
    assert.equal(r.statusCode, 422);
    assert.equal(r.json().error, 'Idempotency-Key was already used with a different request');
    assert.equal(await countRows(t.db), before);
  });

  test('concurrent creates with one key make one row; every 201 is the same request, the rest 409', async () => {
    const body = createBody({ reservation_ref: 'IDEM-RACE' });
    const rs = await Promise.all(Array.from({ length: 15 }, () => create(body, 'key-race')));
    const codes = rs.map((r) => r.statusCode);
    assert.ok(
      codes.every((s) => s === 201 || s === 409),
      codes.join(','),
    );
    assert.ok(codes.includes(201));
    assert.equal(new Set(rs.filter((r) => r.statusCode === 201).map((r) => r.json().uuid)).size, 1);
    assert.equal(rs.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']).length, 1);
    for (const r of rs.filter((x) => x.statusCode === 409)) assert.equal(typeof r.json().error, 'string');
    assert.equal(await rowsFor('IDEM-RACE'), 1);
    // Once settled, the key replays.
    const later = await create(body, 'key-race');
    assert.equal(later.statusCode, 201);
    assert.equal(later.headers['idempotent-replayed'], 'true');
  });

  test('keys are per tenant: another tenant using the same key gets its own request', async () => {
    const other = await t.newTenant('Other hotel');
    const body = createBody({ reservation_ref: 'IDEM-T' });
    const mine = await create(body, 'shared-key');
    const theirs = await create(body, 'shared-key', other);
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().uuid, mine.json().uuid);
    assert.equal(await rowsFor('IDEM-T', other.tenantId), 1);
    // And the other tenant can read its own, not ours.
    assert.equal(
      (await t.call({ method: 'GET', url: `${BASE}${theirs.json().uuid}/`, tenant: other })).statusCode,
      200,
    );
    assert.equal((await t.call({ method: 'GET', url: `${BASE}${mine.json().uuid}/`, tenant: other })).statusCode, 404);
  });

  test('a business error is replayed too: the same key and body answer the same 400', async () => {
    const bad = createBody({ request_type: 'DEPOSIT', amount: 0, reservation_ref: 'IDEM-400' });
    const first = await create(bad, 'key-400');
    assert.equal(first.statusCode, 400);
    const again = await create(bad, 'key-400');
    assert.equal(again.statusCode, 400);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.equal(await rowsFor('IDEM-400'), 0);
  });

  test('a body refused by validation (422) leaves the key free for the corrected body', async () => {
    const r = await create({ ...createBody({ reservation_ref: 'IDEM-422' }), guest_email: 'nope' }, 'key-422');
    assert.equal(r.statusCode, 422);
    const fixed = await create(createBody({ reservation_ref: 'IDEM-422' }), 'key-422');
    assert.equal(fixed.statusCode, 201, fixed.body);
    assert.equal(await rowsFor('IDEM-422'), 1);
  });

  test('an Idempotency-Key that is empty, too long or not visible ASCII is a 400, and creates nothing', async () => {
    const before = await countRows(t.db);
    for (const key of ['', 'x'.repeat(256), 'has space', 'tab\there', 'clé']) {
      const r = await create(createBody({ reservation_ref: 'IDEM-BADKEY' }), key);
      assert.equal(r.statusCode, 400, JSON.stringify(key));
      assert.equal(typeof r.json().error, 'string');
    }
    assert.equal(await countRows(t.db), before);
    assert.equal((await create(createBody({ reservation_ref: 'IDEM-OKKEY' }), 'x'.repeat(255))).statusCode, 201);
  });

  test('applies to cancel: a retried cancel replays its 200 instead of the terminal-status 400', async () => {
    const c = await createRequest(t, { reservation_ref: 'IDEM-CANCEL' });
    const cancel = (key?: string) =>
      t.call({
        method: 'POST',
        url: `${BASE}${c.uuid}/cancel/`,
        headers: key ? { 'idempotency-key': key } : {},
      });
    const first = await cancel('cancel-1');
    assert.equal(first.statusCode, 200);
    const retry = await cancel('cancel-1');
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.json(), { uuid: c.uuid, reference: c.reference, status: 'CANCELLED' });
    const h = await t.repos.paymentRequests.history(c.uuid);
    assert.equal(h.filter((x) => x.to_status === 'CANCELLED').length, 1);
    // Without the key, the same call is the plain 400.
    assert.equal((await cancel()).statusCode, 400);
    // The key is bound to its request: reused on another route or request, it is a 422.
    const other = await createRequest(t, { reservation_ref: 'IDEM-CANCEL-2' });
    const reused = await t.call({
      method: 'POST',
      url: `${BASE}${other.uuid}/cancel/`,
      headers: { 'idempotency-key': 'cancel-1' },
    });
    assert.equal(reused.statusCode, 422);
    assert.equal((await t.repos.paymentRequests.find(t.tenant.tenantId, other.uuid))?.status, 'NOT_INITIATED');
    const onCreate = await create(createBody({ reservation_ref: 'IDEM-CANCEL-3' }), 'cancel-1');
    assert.equal(onCreate.statusCode, 422);
    assert.equal(await rowsFor('IDEM-CANCEL-3'), 0);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
