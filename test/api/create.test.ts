import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createBody, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

describe(`POST /api/payment-requests/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const create = (body: unknown, headers: Record<string, string> = {}) =>
    t.call({ method: 'POST', url: '/api/payment-requests/', payload: body as object, headers });

  test('creates an IMPRINT with its four response fields and stores what was sent', async () => {
    const r = await create(createBody());
    assert.equal(r.statusCode, 201);
    const body = r.json();
    assert.deepEqual(Object.keys(body).sort(), ['payment_link', 'reference', 'status', 'uuid']);
    assert.equal(body.status, 'NOT_INITIATED');
    assert.match(body.reference, /^IMP-\d{4}-\d{4,}$/);
    assert.equal(body.payment_link, `/payment/${body.uuid}/`);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${body.uuid}/` })).json();
    assert.equal(d.amount, 150);
    assert.equal(d.guest_email, 'jeanne.martin@example.com');
    assert.deepEqual(d.reservation_data, { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double' });
    assert.equal(d.guest_phone, undefined);
    assert.equal(d.language, undefined);
  });

  test('applies the documented defaults (EUR, fr, amount 0, empty phone and data)', async () => {
    const r = await create({
      request_type: 'IMPRINT',
      guest_email: 'a@example.com',
      guest_first_name: 'A',
      guest_last_name: 'B',
      reservation_ref: 'R-defaults',
    });
    assert.equal(r.statusCode, 201);
    const d = (await t.call({ method: 'GET', url: `/api/payment-requests/${r.json().uuid}/` })).json();
    assert.equal(d.amount, 0);
    assert.equal(d.currency, 'EUR');
    assert.deepEqual(d.reservation_data, {});
    const row = await t.repos.paymentRequests.find(t.tenant.tenantId, r.json().uuid);
    assert.equal(row?.language, 'fr');
    assert.equal(row?.guest_phone, '');
  });

  test('an IMPRINT without a check-in date is created, with a warning that no hold will be placed', async () => {
    // A tenant of its own: the numbering test counts the default tenant's references.
    const other = await t.newTenant('Hôtel sans dates');
    const create = (body: unknown, headers: Record<string, string> = {}) =>
      t.call({
        method: 'POST',
        url: '/api/payment-requests/',
        payload: body as object,
        headers: { ...other.headers, ...headers },
        tenant: other,
      });
    const warned = await create(createBody({ request_type: 'IMPRINT', reservation_data: { room_type: 'Double' } }));
    assert.equal(warned.statusCode, 201, warned.body);
    assert.deepEqual(
      (warned.json().warnings as { code: string }[]).map((w) => w.code),
      ['no_hold_will_be_placed'],
    );
    assert.match(warned.json().warnings[0].message, /reservation_data\.checkin/);
    // The replay of a keyed create answers the same warning.
    const keyed = createBody({ request_type: 'IMPRINT', reservation_data: {}, reservation_ref: 'NO-DATE' });
    const first = await create(keyed, { 'idempotency-key': 'no-date-1' });
    const replay = await create(keyed, { 'idempotency-key': 'no-date-1' });
    assert.equal(first.json().warnings?.[0]?.code, 'no_hold_will_be_placed', first.body);
    assert.equal(replay.body, first.body);
    // With a check-in, or a DEPOSIT (charged at once), nothing to warn about.
    for (const body of [createBody(), createBody({ request_type: 'DEPOSIT', reservation_data: {} })]) {
      const r = await create(body);
      assert.equal(r.statusCode, 201, r.body);
      assert.equal(r.json().warnings, undefined, r.body);
    }
  });

  test('a 201 names the new request in Location, on the first answer and on its replay', async () => {
    const headers = { 'idempotency-key': 'location-check' };
    const plain = await create(createBody());
    const keyed = await create(createBody({ reservation_ref: 'R-location' }), headers);
    const replay = await create(createBody({ reservation_ref: 'R-location' }), headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    for (const r of [plain, keyed, replay]) {
      assert.equal(r.statusCode, 201);
      const location = String(r.headers.location);
      assert.equal(location, `${t.config.publicBaseUrl}/api/payment-requests/${r.json().uuid}/`);
      const followed = await t.call({ method: 'GET', url: new URL(location).pathname });
      assert.equal(followed.json().reference, r.json().reference);
    }
    const refused = await create(createBody({ request_type: 'DEPOSIT', amount: 0 }));
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.headers.location, undefined);
  });

  test('numbers DEPOSIT and IMPRINT references separately, per tenant, zero-padded', async () => {
    const other = await t.newTenant('Other hotel');
    const year = new Date().getFullYear();
    const d1 = (await create(createBody({ request_type: 'DEPOSIT', amount: 10 }))).json();
    const d2 = (await create(createBody({ request_type: 'DEPOSIT', amount: 10 }))).json();
    const o1 = (
      await t.call({
        method: 'POST',
        url: '/api/payment-requests/',
        payload: createBody({ request_type: 'DEPOSIT', amount: 10 }),
        tenant: other,
      })
    ).json();
    assert.equal(d1.reference, `DEP-${year}-0001`);
    assert.equal(d2.reference, `DEP-${year}-0002`);
    assert.equal(o1.reference, `DEP-${year}-0001`);
  });

  test('a DEPOSIT without an amount above 0 is the spec 400 with its exact message', async () => {
    for (const amount of [undefined, 0, -5]) {
      const r = await create(createBody({ request_type: 'DEPOSIT', amount }));
      assert.equal(r.statusCode, 400, `amount ${amount}`);
      assert.equal(r.json().error, 'DEPOSIT requests require an amount greater than 0');
    }
  });

  test('references stay unique under concurrent creates of one tenant', async () => {
    const rs = await Promise.all(
      Array.from({ length: 40 }, () => create(createBody({ request_type: 'IMPRINT', reservation_ref: 'RACE' }))),
    );
    assert.ok(rs.every((r) => r.statusCode === 201));
    const refs = new Set(rs.map((r) => r.json().reference));
    assert.equal(refs.size, 40);
  });
});
