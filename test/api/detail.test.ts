import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STATUSES, type Status } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

/** The fields of the detail, with the two the service adds (hold_expires_at, link_expires_at). */
const DETAIL_FIELDS = [
  'uuid',
  'reference',
  'request_type',
  'status',
  'amount',
  'amount_captured',
  'amount_refunded',
  'currency',
  'guest_email',
  'guest_first_name',
  'guest_last_name',
  'reservation_ref',
  'reservation_data',
  'masked_pan',
  'card_expiry_month',
  'card_expiry_year',
  'order_cycle',
  'email_sent',
  'created_at',
  'updated_at',
  'hold_expires_at',
  'link_expires_at',
  'guarantee_failed_at',
  'guarantee_failures',
  'hold_decline_reason',
  'hold_decline_code',
  'capture_reason',
  'capture_note',
  'refund_reason',
  'released_at',
  'refund_note',
].sort();

const EXPECTED_CYCLE: Record<Status, 'OPEN' | 'CLOSED'> = {
  NOT_INITIATED: 'OPEN',
  PENDING: 'OPEN',
  AUTHORISED: 'OPEN',
  AUTHORISED_TO_VALIDATE: 'OPEN',
  ERROR: 'OPEN',
  CAPTURED: 'CLOSED',
  REFUSED: 'CLOSED',
  CANCELLED: 'CLOSED',
  EXPIRED: 'CLOSED',
  REFUNDED: 'CLOSED',
};

describe(`GET /api/payment-requests/{uuid}/ (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('returns exactly the fields of the detail (hold_expires_at and link_expires_at included) with their types', async () => {
    const startedAt = Date.now();
    const c = await createRequest(t, {
      request_type: 'DEPOSIT',
      amount: 99.9,
      currency: 'CHF',
      guest_email: 'hans@example.ch',
      guest_first_name: 'Hans',
      guest_last_name: 'Müller',
      guest_phone: '+41791234567',
      language: 'de',
      reservation_ref: 'PMS-42',
      reservation_data: { room_type: 'Suite', nested: { a: [1, 2, { b: null }] } },
    });
    const r = await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const d = r.json();
    assert.deepEqual(Object.keys(d).sort(), DETAIL_FIELDS);
    assert.equal(d.guest_phone, undefined);
    assert.equal(d.language, undefined);
    assert.deepEqual(
      { ...d, created_at: undefined, updated_at: undefined, link_expires_at: undefined },
      {
        uuid: c.uuid,
        reference: c.reference,
        request_type: 'DEPOSIT',
        status: 'NOT_INITIATED',
        amount: 99.9,
        amount_captured: 0,
        amount_refunded: 0,
        currency: 'CHF',
        guest_email: 'hans@example.ch',
        guest_first_name: 'Hans',
        guest_last_name: 'Müller',
        reservation_ref: 'PMS-42',
        reservation_data: { room_type: 'Suite', nested: { a: [1, 2, { b: null }] } },
        masked_pan: '',
        card_expiry_month: null,
        card_expiry_year: null,
        order_cycle: 'OPEN',
        email_sent: false,
        hold_expires_at: null,
        guarantee_failed_at: null,
        guarantee_failures: 0,
        hold_decline_reason: null,
        hold_decline_code: null,
        capture_reason: null,
        capture_note: null,
        refund_reason: null,
        refund_note: null,
        released_at: null,
        created_at: undefined,
        updated_at: undefined,
        link_expires_at: undefined,
      },
    );
    for (const f of ['created_at', 'updated_at', 'link_expires_at']) {
      assert.match(d[f], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, f);
    }
    const created = Date.parse(d.created_at);
    assert.ok(Math.abs(created - startedAt) < 60_000, 'created_at is now');
    // Default link lifetime: 30 days.
    const lifetimeDays = (Date.parse(d.link_expires_at) - created) / 86_400_000;
    assert.ok(Math.abs(lifetimeDays - 30) < 0.01, `link lifetime ${lifetimeDays} days`);
  });

  test('amounts come back as the decimal numbers that were sent', async () => {
    for (const amount of [0.01, 0.1, 10.1, 19.99, 1234.56, 1_000_000]) {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount });
      const d = (await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` })).json();
      assert.equal(d.amount, amount);
    }
  });

  test('order_cycle: CLOSED for the terminal statuses, OPEN otherwise, for every status', async () => {
    const c = await createRequest(t);
    for (const status of STATUSES) {
      await arrangeStatus(t.db, c.uuid, status);
      const d = (await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` })).json();
      assert.equal(d.status, status);
      assert.equal(d.order_cycle, EXPECTED_CYCLE[status], status);
    }
    assert.equal(Object.keys(EXPECTED_CYCLE).length, STATUSES.length);
  });

  test('a CAPTURED request shows amount_captured', async () => {
    const c = await createRequest(t, { amount: 80 });
    await arrangeStatus(t.db, c.uuid, 'CAPTURED', { amountCaptured: 8000 });
    const d = (await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` })).json();
    assert.equal(d.amount_captured, 80);
    assert.equal(d.order_cycle, 'CLOSED');
  });

  test('an unknown uuid is 404 with the exact message', async () => {
    const uuid = '6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d11';
    const r = await t.call({ method: 'GET', url: `${BASE}${uuid}/` });
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().error, `Payment request ${uuid} not found.`);
  });

  test('a path that is not a UUID is 404 like any unknown one', async () => {
    for (const bad of [
      'abc',
      '123',
      'not-a-uuid-at-all',
      '6f1c2a52-7d3e-4a41-9a55-0c8f5b0e2d1',
      "1' OR '1'='1",
      'x'.repeat(150),
    ]) {
      const r = await t.call({ method: 'GET', url: `${BASE}${encodeURIComponent(bad)}/` });
      assert.equal(r.statusCode, 404, bad);
      assert.equal(typeof r.json().error, 'string');
      assert.match(r.json().error, /^Payment request .* not found\.$/);
    }
  });

  test('a path segment longer than any uuid is 404 too', async () => {
    const r = await t.call({ method: 'GET', url: `${BASE}${'a'.repeat(300)}/` });
    assert.equal(r.statusCode, 404);
    assert.equal(typeof r.json().error, 'string');
  });

  test('the uuid is matched case-insensitively, and the trailing slash is optional', async () => {
    const c = await createRequest(t);
    const upper = await t.call({ method: 'GET', url: `${BASE}${c.uuid.toUpperCase()}/` });
    assert.equal(upper.statusCode, 200);
    assert.equal(upper.json().uuid, c.uuid);
    const bare = await t.call({ method: 'GET', url: `${BASE}${c.uuid}` });
    assert.equal(bare.statusCode, 200);
    assert.equal(bare.json().uuid, c.uuid);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});
