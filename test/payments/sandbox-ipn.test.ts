import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { InvalidNotificationError } from '../../src/providers/index.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { sandboxOf } from '../helpers/providers.ts';
import { checkoutForm, detail, historyCount, ipnSignature, postIpn, submitCard } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

/** The body the sandbox sent for a request: what a replaying provider would send again. */
async function sentBody(t: ListeningApp, id: string): Promise<string> {
  const r = await t.db.query<{ body: string }>(
    "SELECT body FROM sandbox_notifications WHERE body LIKE '%' || $1 || '%' ORDER BY id",
    [id],
  );
  assert.equal(r.rows.length, 1);
  return (r.rows[0] as { body: string }).body;
}

describe(`sandbox IPN: signature, duplicates, order (${ENGINE})`, () => {
  let t: ListeningApp;
  before(async () => {
    t = await startListeningApp();
  });
  after(async () => {
    await t.close();
  });

  test('the sandbox signs its IPN as documented: x-sandbox-signature, HMAC-SHA-256 of the raw body', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 30 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
    const body = await sentBody(t, c.uuid);
    const parsed = JSON.parse(body);
    assert.equal(parsed.order_id, c.uuid);
    assert.equal(parsed.outcome, 'paid');
    assert.equal(parsed.amount, 3000);
    assert.match(parsed.event_id, /^evt_[0-9a-f]{24}$/);
    const n = sandboxOf(t.app).parseNotification(body, {
      'x-sandbox-signature': ipnSignature(t.app.payreq.secretKey, body),
    });
    assert.equal(n.paymentRequestId, c.uuid);
    assert.equal(n.amountCents, 3000);
  });

  const badSignatures: [string, string | null][] = [
    ['no signature', null],
    ['a wrong signature', `sha256=${'ab'.repeat(32)}`],
    ['a signature without its prefix', 'PLACEHOLDER'],
    ['a truncated signature', 'sha256=abcdef'],
    ['a signature made with another key', 'OTHER'],
  ];
  for (const [what, given] of badSignatures) {
    test(`an IPN with ${what}: 401, nothing changes`, async () => {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 45 });
      const body = JSON.stringify({
        event_id: `evt_${randomUUID()}`,
        order_id: c.uuid,
        outcome: 'paid',
        transaction_id: 'txn_forged',
        amount: 4500,
        created_at: new Date().toISOString(),
      });
      const good = ipnSignature(t.app.payreq.secretKey, body);
      const signature =
        given === 'PLACEHOLDER'
          ? good.slice('sha256='.length)
          : given === 'OTHER'
            ? ipnSignature('z'.repeat(64), body)
            : given;
      const before = await historyCount(t, c.uuid);
      const r = await postIpn(t, body, signature);
      assert.equal(r.status, 401, r.body);
      const d = await detail(t, c.uuid);
      assert.equal(d.status, 'NOT_INITIATED');
      assert.equal(d.amount_captured, 0);
      assert.equal(await historyCount(t, c.uuid), before);
      const events = await t.db.query('SELECT 1 FROM provider_events WHERE payment_request_id = $1', [c.uuid]);
      assert.equal(events.rows.length, 0);
    });
  }

  test('a signed body altered in transit (one byte) is refused', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 45 });
    const body = JSON.stringify({
      event_id: `evt_${randomUUID()}`,
      order_id: c.uuid,
      outcome: 'paid',
      transaction_id: 'txn_x',
      amount: 4500,
      created_at: new Date().toISOString(),
    });
    const r = await postIpn(t, body.replace('4500', '4501'), ipnSignature(t.app.payreq.secretKey, body));
    assert.equal(r.status, 401);
    assert.equal((await detail(t, c.uuid)).status, 'NOT_INITIATED');
  });

  const unreadable: [string, string][] = [
    ['not JSON', '{"event_id":'],
    ['a JSON array', '[]'],
    ['no event id', JSON.stringify({ order_id: randomUUID(), outcome: 'error' })],
    ['an unknown outcome', JSON.stringify({ event_id: 'e1', order_id: randomUUID(), outcome: 'maybe' })],
    ['an order id that is no UUID', JSON.stringify({ event_id: 'e2', order_id: 'x', outcome: 'error' })],
    [
      'an amount as text',
      JSON.stringify({ event_id: 'e3', order_id: randomUUID(), outcome: 'paid', amount: '10', transaction_id: 't' }),
    ],
    [
      'a payment without amount',
      JSON.stringify({ event_id: 'e4', order_id: randomUUID(), outcome: 'paid', transaction_id: 't' }),
    ],
    ['a registration without card', JSON.stringify({ event_id: 'e5', order_id: randomUUID(), outcome: 'registered' })],
    [
      'an expiry month 13',
      JSON.stringify({ event_id: 'e6', order_id: randomUUID(), outcome: 'error', expiry_month: 13 }),
    ],
  ];
  for (const [what, body] of unreadable) {
    test(`a correctly signed body with ${what} is an invalid notification`, async () => {
      const headers = { 'x-sandbox-signature': ipnSignature(t.app.payreq.secretKey, body) };
      assert.throws(() => sandboxOf(t.app).parseNotification(body, headers), InvalidNotificationError);
      const r = await postIpn(t, body);
      assert.equal(r.status, 401);
    });
  }

  test('a signed IPN with a currency, amount or outcome outside what the sandbox sends is refused: 401, nothing stored', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 12.5 });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    const paid = (changes: Record<string, unknown>) =>
      JSON.stringify({
        event_id: `evt_${randomUUID()}`,
        order_id: c.uuid,
        outcome: 'paid',
        transaction_id: `txn_${randomUUID()}`,
        amount: 1250,
        currency: 'EUR',
        created_at: new Date().toISOString(),
        ...changes,
      });
    const before = await historyCount(t, c.uuid);
    const odd: [string, Record<string, unknown>][] = [
      ['a currency that is no ISO 4217 code', { currency: 'EURO' }],
      ['a currency in lower case', { currency: 'eur' }],
      ['a currency the sandbox never charges in', { currency: 'GBP' }],
      ['an amount beyond any request payreq makes', { amount: 100_000_001 }],
      ['an amount no ledger row can hold', { amount: 2 ** 31 }],
      ['an outcome the sandbox does not send', { outcome: 'captured' }],
    ];
    for (const [what, changes] of odd) {
      const r = await postIpn(t, paid(changes));
      assert.equal(r.status, 401, `${what}: ${r.body}`);
      assert.equal(JSON.parse(r.body).code, 'invalid_notification', what);
    }
    const ledger = await t.db.query('SELECT currency, incident FROM money_ledger WHERE payment_request_id = $1', [
      c.uuid,
    ]);
    assert.deepEqual(ledger.rows, [], 'no money stored');
    const events = await t.db.query('SELECT 1 FROM provider_events WHERE payment_request_id = $1', [c.uuid]);
    assert.equal(events.rows.length, 0);
    assert.equal(await historyCount(t, c.uuid), before);
    // The notification as the sandbox sends it still applies: the refusals were about the data.
    const r = await postIpn(t, paid({}));
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).status, 'applied');
    assert.equal((await detail(t, c.uuid)).status, 'CAPTURED');
  });

  test('a duplicate IPN (the same body posted again) is applied once: one history row', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 55 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
    const body = await sentBody(t, c.uuid);
    const moves = async () =>
      (
        await t.db.query("SELECT 1 FROM status_history WHERE payment_request_id = $1 AND to_status = 'CAPTURED'", [
          c.uuid,
        ])
      ).rows.length;
    assert.equal(await moves(), 1);
    const before = await historyCount(t, c.uuid);
    for (let i = 0; i < 3; i++) {
      const r = await postIpn(t, body);
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.body).status, 'duplicate');
    }
    assert.equal(await moves(), 1);
    assert.equal(await historyCount(t, c.uuid), before);
    const mail = await t.db.query('SELECT 1 FROM email_outbox WHERE payment_request_id = $1', [c.uuid]);
    assert.equal(mail.rows.length, 1);
  });

  test("an out-of-order IPN ('error' after CAPTURED) changes nothing", async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 65 });
    assert.equal((await submitCard(await checkoutForm(t, c.uuid), { number: '4242424242424242' })).status, 303);
    const before = await detail(t, c.uuid);
    assert.equal(before.status, 'CAPTURED');
    const history = await historyCount(t, c.uuid);
    for (const outcome of ['error', 'refused']) {
      const body = JSON.stringify({
        event_id: `evt_late_${outcome}`,
        order_id: c.uuid,
        outcome,
        transaction_id: 'txn_late',
        created_at: new Date().toISOString(),
      });
      const r = await postIpn(t, body);
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.body).status, 'ignored');
    }
    const after = await detail(t, c.uuid);
    assert.equal(after.status, 'CAPTURED');
    assert.equal(after.amount_captured, 65);
    assert.equal(await historyCount(t, c.uuid), history);
  });
});
