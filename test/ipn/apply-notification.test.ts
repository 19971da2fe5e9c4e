import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderNotification } from '../../src/providers/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

let seq = 0;
const event = (id: string, outcome: ProviderNotification['outcome'], extra: Partial<ProviderNotification> = {}) => ({
  eventId: `evt-${++seq}`,
  paymentRequestId: id,
  outcome,
  ...extra,
});

describe(`guest commands: the provider's verdict, applied once (${ENGINE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const detail = async (id: string) => (await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json();
  const history = (id: string) => t.repos.paymentRequests.history(id);
  const outbox = async (id: string) =>
    (await t.db.query<{ kind: string }>('SELECT kind FROM email_outbox WHERE payment_request_id = $1', [id])).rows;

  test('opening the form moves NOT_INITIATED to PENDING once, recorded as the guest', async () => {
    const { uuid } = await createRequest(t);
    await t.app.payreq.guest.openForm(uuid);
    await t.app.payreq.guest.openForm(uuid);
    assert.equal((await detail(uuid)).status, 'PENDING');
    const moves = (await history(uuid)).filter((h) => h.to_status === 'PENDING');
    assert.equal(moves.length, 1);
    assert.equal(moves[0]?.source, 'guest');
  });

  test('a registered card makes an IMPRINT AUTHORISED with its card details; the token is stored sealed', async () => {
    const { uuid } = await createRequest(t, { request_type: 'IMPRINT', amount: 300 });
    const n = event(uuid, 'registered', {
      cardToken: 'tok_plain_1234',
      maskedPan: '424242XXXXXX4242',
      expiryMonth: 12,
      expiryYear: 2031,
      transactionId: 'tx-1',
    });
    assert.equal(await t.app.payreq.notifications.apply('sandbox', n), 'applied');
    const d = await detail(uuid);
    assert.equal(d.status, 'AUTHORISED');
    assert.equal(d.masked_pan, '424242XXXXXX4242');
    assert.equal(d.card_expiry_month, 12);
    assert.equal(d.card_expiry_year, 2031);
    assert.equal(d.amount_captured, 0, 'an imprint debits nothing');
    const row = (
      await t.db.query<{ card_token: string }>('SELECT card_token FROM payment_requests WHERE id = $1', [uuid])
    ).rows[0];
    assert.ok(row?.card_token && !row.card_token.includes('tok_plain_1234'));
    assert.equal(t.app.payreq.cardTokens.open(row.card_token, uuid), 'tok_plain_1234');
  });

  test('a paid DEPOSIT is CAPTURED for the amount, and one confirmation e-mail is due however often it is told', async () => {
    const { uuid } = await createRequest(t, { request_type: 'DEPOSIT', amount: 120.5 });
    const n = event(uuid, 'paid', { amountCents: 12050, transactionId: 'tx-2' });
    assert.equal(await t.app.payreq.notifications.apply('sandbox', n), 'applied');
    assert.equal(await t.app.payreq.notifications.apply('sandbox', n), 'duplicate');
    const d = await detail(uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 120.5);
    assert.equal(d.order_cycle, 'CLOSED');
    assert.deepEqual(await outbox(uuid), [{ kind: 'deposit_confirmation' }]);
    assert.equal((await history(uuid)).filter((h) => h.source === 'ipn').length, 1);
  });

  test('an event out of order never moves a terminal status', async () => {
    const { uuid } = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    await t.app.payreq.notifications.apply('sandbox', event(uuid, 'paid', { amountCents: 5000 }));
    for (const late of ['error', 'refused'] as const) {
      assert.equal(await t.app.payreq.notifications.apply('sandbox', event(uuid, late)), 'ignored', late);
    }
    // Money reported on a request already paid: never applied, an incident to give back.
    for (const late of ['registered', 'paid'] as const) {
      assert.equal(await t.app.payreq.notifications.apply('sandbox', event(uuid, late)), 'incident', late);
    }
    assert.equal((await detail(uuid)).status, 'CAPTURED');
    const cancelled = await createRequest(t, { request_type: 'DEPOSIT', amount: 50 });
    await t.call({ method: 'POST', url: `/api/payment-requests/${cancelled.uuid}/cancel/` });
    assert.equal(
      await t.app.payreq.notifications.apply('sandbox', event(cancelled.uuid, 'paid', { amountCents: 5000 })),
      'incident',
    );
    assert.equal((await detail(cancelled.uuid)).status, 'CANCELLED');
    assert.deepEqual(await outbox(cancelled.uuid), []);
  });

  test('after an ERROR the guest may retry: a later payment is applied', async () => {
    const { uuid } = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 });
    assert.equal(await t.app.payreq.notifications.apply('sandbox', event(uuid, 'error')), 'applied');
    assert.equal((await detail(uuid)).status, 'ERROR');
    assert.equal(
      await t.app.payreq.notifications.apply('sandbox', event(uuid, 'paid', { amountCents: 8000 })),
      'applied',
    );
    assert.equal((await detail(uuid)).status, 'CAPTURED');
  });

  test('the type decides: a payment for an IMPRINT or a card registration for a DEPOSIT is an incident', async () => {
    const imprint = await createRequest(t, { request_type: 'IMPRINT' });
    const deposit = await createRequest(t, { request_type: 'DEPOSIT', amount: 10 });
    assert.equal(await t.app.payreq.notifications.apply('sandbox', event(imprint.uuid, 'paid')), 'incident');
    assert.equal(await t.app.payreq.notifications.apply('sandbox', event(deposit.uuid, 'registered')), 'incident');
    assert.equal((await detail(imprint.uuid)).status, 'NOT_INITIATED');
    assert.equal((await detail(deposit.uuid)).status, 'NOT_INITIATED');
  });

  test('a card registered on a request that no longer exists is an incident on its history', async () => {
    const { uuid } = await createRequest(t);
    await t.call({ method: 'DELETE', url: `/api/payment-requests/${uuid}/` });
    assert.equal(await t.app.payreq.notifications.apply('sandbox', event(uuid, 'registered')), 'incident');
    const trail = await t.repos.paymentRequests.history(uuid);
    assert.deepEqual(
      trail.map((h) => h.to_status),
      ['NOT_INITIATED', 'DELETED', 'INCIDENT'],
    );
  });

  test('an order payreq never had: unknown_order, nothing recorded', async () => {
    const stranger = '00000000-0000-4000-8000-000000000001';
    assert.equal(await t.app.payreq.notifications.apply('sandbox', event(stranger, 'paid')), 'unknown_order');
    const rows = await t.db.query('SELECT 1 FROM money_ledger WHERE payment_request_id = $1', [stranger]);
    assert.equal(rows.rows.length, 0);
  });

  test('concurrent deliveries of one event: applied exactly once', async () => {
    const { uuid } = await createRequest(t, { request_type: 'DEPOSIT', amount: 75 });
    const n = event(uuid, 'paid', { amountCents: 7500 });
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => t.app.payreq.notifications.apply('sandbox', n)));
    assert.deepEqual(outcomes.filter((o) => o === 'applied').length, 1);
    assert.equal((await history(uuid)).filter((h) => h.source === 'ipn').length, 1);
  });

  test('an IPN racing a cancel: one wins, and the loser changes nothing', async () => {
    const { uuid } = await createRequest(t, { request_type: 'DEPOSIT', amount: 60 });
    await arrangeStatus(t.db, uuid, 'PENDING');
    const [cancel, ipn] = await Promise.all([
      t.call({ method: 'POST', url: `/api/payment-requests/${uuid}/cancel/` }),
      t.app.payreq.notifications.apply('sandbox', event(uuid, 'paid', { amountCents: 6000 })),
    ]);
    const status = (await detail(uuid)).status;
    if (status === 'CANCELLED') {
      assert.equal(cancel.statusCode, 200);
      assert.equal(ipn, 'incident');
    } else {
      assert.equal(status, 'CAPTURED');
      assert.equal(ipn, 'applied');
      assert.equal(cancel.statusCode, 400);
    }
  });
});
