import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MONEY_REASONS } from '../../src/domain/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { countingProvider, gate } from '../helpers/providers.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { auditResponses, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const BASE = '/api/payment-requests/';

interface Event {
  type: string;
  data: Record<string, unknown> & { uuid: string };
}

// A capture and a refund say why: a reason of the closed list and a free note, both optional.
describe(`capture and refund reasons (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function held(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    return c;
  }
  const post = (uuid: string, action: string, payload?: object) =>
    t.call({ method: 'POST', url: `${BASE}${uuid}/${action}/`, ...(payload ? { payload } : {}) });
  const detail = async (uuid: string) => (await t.call({ method: 'GET', url: `${BASE}${uuid}/` })).json();
  /** The request's events once the feed shows `count` of them (an open transaction elsewhere may hold one back). */
  const events = (uuid: string, count: number) =>
    eventually(async () => {
      const r = await t.call({ method: 'GET', url: '/api/events/?limit=1000' });
      const mine = (r.json() as Event[]).filter((e) => e.data.uuid === uuid);
      return mine.length >= count ? mine : undefined;
    }, `${count} events of ${uuid}`);
  const ledger = async (id: string) =>
    (
      await t.db.query<{ kind: string; reason: string | null; reason_note: string | null }>(
        "SELECT kind, reason, reason_note FROM money_ledger WHERE payment_request_id = $1 AND kind <> 'hold' ORDER BY id",
        [id],
      )
    ).rows;
  const history = async (id: string) =>
    (
      await t.db.query<{ to_status: string; detail: Record<string, unknown> | null }>(
        'SELECT to_status, detail FROM status_history WHERE payment_request_id = $1 ORDER BY id',
        [id],
      )
    ).rows;

  test('a capture with a reason and a note: on its ledger row, its history row, the detail and the captured event', async () => {
    const c = await held(200);
    const r = await post(c.uuid, 'capture', { amount: 95, reason: 'no_show', note: '  First night, as booked  ' });
    assert.equal(r.statusCode, 200, r.body);
    const d = await detail(c.uuid);
    assert.deepEqual(
      [d.status, d.capture_reason, d.capture_note, d.refund_reason, d.refund_note],
      ['CAPTURED', 'no_show', 'First night, as booked', null, null],
    );
    assert.deepEqual(await ledger(c.uuid), [
      { kind: 'capture', reason: 'no_show', reason_note: 'First night, as booked' },
    ]);
    const captured = (await history(c.uuid)).find((h) => h.to_status === 'CAPTURED');
    assert.deepEqual([captured?.detail?.reason, captured?.detail?.note], ['no_show', 'First night, as booked']);
    const event = (await events(c.uuid, 2)).find((e) => e.type === 'payment_request.captured');
    assert.deepEqual([event?.data.capture_reason, event?.data.capture_note], ['no_show', 'First night, as booked']);
  });

  test('each refund says its own: the event of a refund carries that refund’s reason', async () => {
    const c = await held(300);
    assert.equal((await post(c.uuid, 'capture', { reason: 'damage' })).statusCode, 200);
    const first = await post(c.uuid, 'refund', { amount: 40, reason: 'goodwill', note: 'Noisy room' });
    assert.equal(first.statusCode, 200, first.body);
    const second = await post(c.uuid, 'refund', { reason: 'billing_error' });
    assert.equal(second.statusCode, 200, second.body);
    const d = await detail(c.uuid);
    assert.deepEqual(
      [d.status, d.capture_reason, d.capture_note, d.refund_reason, d.refund_note],
      ['REFUNDED', 'damage', null, 'billing_error', null],
    );
    const feed = await events(c.uuid, 4);
    const partial = feed.find((e) => e.type === 'payment_request.partially_refunded');
    const last = feed.find((e) => e.type === 'payment_request.refunded');
    assert.deepEqual([partial?.data.refund_reason, partial?.data.refund_note], ['goodwill', 'Noisy room']);
    assert.deepEqual([last?.data.refund_reason, last?.data.refund_note], ['billing_error', null]);
    assert.deepEqual(
      (await ledger(c.uuid)).map((l) => [l.kind, l.reason, l.reason_note]),
      [
        ['capture', 'damage', null],
        ['refund', 'goodwill', 'Noisy room'],
        ['refund', 'billing_error', null],
      ],
    );
  });

  test('old calls still work: no body, or an amount alone, is a move with no reason given', async () => {
    const c = await held(100);
    assert.equal((await post(c.uuid, 'capture')).statusCode, 200);
    assert.equal((await post(c.uuid, 'refund', { amount: 10 })).statusCode, 200);
    const d = await detail(c.uuid);
    assert.deepEqual([d.capture_reason, d.capture_note, d.refund_reason, d.refund_note], [null, null, null, null]);
    const rows = await history(c.uuid);
    assert.ok(rows.every((h) => h.detail === null || !('reason' in h.detail)));
  });

  test('a reason off the list is 400 invalid_reason naming the list, and nothing moves', async () => {
    const c = await held(100);
    for (const reason of ['No-show', 'noshow', '', 'minibar', 7, null]) {
      const r = await post(c.uuid, 'capture', { amount: 10, reason });
      assert.equal(r.statusCode, 400, `${JSON.stringify(reason)}: ${r.body}`);
      assert.equal(r.json().code, 'invalid_reason');
      assert.deepEqual(r.json().allowed, [...MONEY_REASONS]);
    }
    // Even beside another mistake: the reason is the caller's vocabulary, said first.
    const both = await post(c.uuid, 'capture', { amount: -1, reason: 'typo' });
    assert.equal(both.json().code, 'invalid_reason');
    const d = await detail(c.uuid);
    assert.deepEqual([d.status, d.amount_captured], ['AUTHORISED_TO_VALIDATE', 0]);
    assert.deepEqual(await ledger(c.uuid), []);
    const captured = await held(100);
    assert.equal((await post(captured.uuid, 'capture')).statusCode, 200);
    const refund = await post(captured.uuid, 'refund', { reason: 'refund' });
    assert.equal(refund.statusCode, 400, refund.body);
    assert.equal(refund.json().code, 'invalid_reason');
    assert.equal((await detail(captured.uuid)).amount_refunded, 0);
  });

  test('a note too long or holding a NUL is a 422 naming `note`, and nothing moves', async () => {
    const c = await held(100);
    for (const note of ['x'.repeat(501), 'a\u0000b', 12]) {
      const r = await post(c.uuid, 'capture', { reason: 'other', note });
      assert.equal(r.statusCode, 422, r.body);
      assert.deepEqual(
        r.json().details.map((i: { field: string }) => i.field),
        ['note'],
      );
    }
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
    // 500 characters is the limit, not beyond it.
    assert.equal((await post(c.uuid, 'capture', { reason: 'other', note: 'y'.repeat(500) })).statusCode, 200);
  });

  test('the document lists the reasons, the note and the 400', async () => {
    const doc = (await t.call({ method: 'GET', url: '/api/openapi.json', tenant: null })).json();
    for (const [name, path] of [
      ['CaptureRequest', '/api/payment-requests/{uuid}/capture/'],
      ['RefundRequest', '/api/payment-requests/{uuid}/refund/'],
    ] as const) {
      const schema = doc.components.schemas[name];
      assert.deepEqual(schema.properties.reason.enum, [...MONEY_REASONS], name);
      assert.equal(schema.properties.note.maxLength, 500, name);
      const bad = JSON.stringify(doc.paths[path].post.responses['400']);
      assert.ok(bad.includes('"invalid_reason"'), path);
    }
    const fields = Object.keys(doc.components.schemas.PaymentRequestDetail.properties);
    for (const f of ['capture_reason', 'capture_note', 'refund_reason', 'refund_note'])
      assert.ok(fields.includes(f), f);
  });

  test('every response carried x-request-id and none was a 5xx', () => auditResponses(t));
});

// The reason is kept with the move's ledger row: an outcome recorded later (the provider's late
// answer here; reconcile likewise) still writes it into the history and onto the request.
describe(`a reason survives an answer that comes late (${ENGINE})`, () => {
  let t: TestApp;
  const provider = countingProvider();
  const late = gate();
  before(async () => {
    t = await startTestApp({ provider: provider.provider, env: { PROVIDER_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    late.open();
    await t.close();
  });

  test('a capture in doubt, answered late: its reason and note reach the history and the detail', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 80 });
    await arrangeStatus(t.db, c.uuid, 'AUTHORISED_TO_VALIDATE');
    provider.holdUntil(late.opened);
    const first = await t.call({
      method: 'POST',
      url: `${BASE}${c.uuid}/capture/`,
      payload: { reason: 'damage', note: 'Broken lamp' },
      headers: { ...t.tenant.headers, 'idempotency-key': 'late-capture' },
    });
    provider.holdUntil(undefined);
    assert.equal(first.statusCode, 504, first.body);
    late.open();
    const detail = await eventually(async () => {
      const d = (await t.call({ method: 'GET', url: `${BASE}${c.uuid}/` })).json();
      return d.status === 'CAPTURED' ? d : undefined;
    }, 'the late answer recorded');
    assert.deepEqual([detail.capture_reason, detail.capture_note], ['damage', 'Broken lamp']);
    const rows = await t.db.query<{ detail: Record<string, unknown> | null }>(
      "SELECT detail FROM status_history WHERE payment_request_id = $1 AND to_status = 'CAPTURED'",
      [c.uuid],
    );
    assert.deepEqual([rows.rows[0]?.detail?.reason, rows.rows[0]?.detail?.note], ['damage', 'Broken lamp']);
  });
});
