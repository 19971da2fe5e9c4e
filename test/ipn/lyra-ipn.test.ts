import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaymentProvider } from '../../src/providers/index.ts';
import { signAnswer } from '../../src/providers/lyra/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { DEMO_SHOP, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { countRows, createBody, createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

async function statusOf(t: TestApp, id: string): Promise<string | undefined> {
  const r = await t.db.query<{ status: string }>('SELECT status FROM payment_requests WHERE id = $1', [id]);
  return r.rows[0]?.status;
}

async function eventCount(t: TestApp): Promise<number> {
  const r = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM provider_events');
  return r.rows[0]?.n ?? -1;
}

describe(`POST /ipn/lyra/: the order's tenant's account verifies it (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: ListeningApp;
  let fake: LyraFake;
  let lyra: PaymentProvider;

  before(async () => {
    fake = await startLyraFake();
    t = await startListeningApp();
    await giveLyraAccount(t, t.tenant.tenantId, fake);
    lyra = await t.app.payreq.providers.forTenant(t.tenant.tenantId);
    assert.equal(lyra.name, 'lyra', 'the tenant with an account takes payments with Lyra');
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  /** A DEPOSIT the guest has opened, paid on the fake's card form: its signed notification. */
  async function paidDeposit(pan: string = LYRA_CARDS.accepted) {
    const created = await createRequest(t, { request_type: 'DEPOSIT', amount: 123.45 });
    await arrangeStatus(t.db, created.uuid, 'PENDING');
    const form = await lyra.startGuestPayment({
      paymentRequestId: created.uuid,
      reference: created.reference,
      requestType: 'DEPOSIT',
      amountCents: 12345,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hotel Test',
      returnUrl: `${t.baseUrl}/pay/${created.uuid}/result`,
      notifyUrl: `${t.baseUrl}/ipn/lyra/`,
    });
    return { id: created.uuid, ...fake.completeForm(formTokenOf(form), pan) };
  }

  const post = (body: string) =>
    fetch(`${t.baseUrl}/ipn/lyra/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });

  /** The notification with its kr-answer rewritten by `change` and signed again with `key`. */
  function resigned(
    ipnBody: string,
    change: (payment: Record<string, unknown>) => void,
    key: string = DEMO_SHOP.password,
  ) {
    const fields = new URLSearchParams(ipnBody);
    const payment = JSON.parse(fields.get('kr-answer') as string) as Record<string, unknown>;
    change(payment);
    const answer = JSON.stringify(payment);
    fields.set('kr-answer', answer);
    fields.set('kr-hash', signAnswer(key, answer));
    return fields.toString();
  }

  test('a paid deposit: the fake posts the signed form, the request is captured, a replay changes nothing', async () => {
    const { id, ipnBody, notify } = await paidDeposit();
    const delivery = await notify();
    assert.equal(delivery.delivered, true, delivery.failures.join(', '));
    const history = await t.db.query('SELECT * FROM provider_events WHERE payment_request_id = $1', [id]);
    const incidents = await t.db.query('SELECT incident FROM money_ledger WHERE payment_request_id = $1', [id]);
    assert.equal(await statusOf(t, id), 'CAPTURED', JSON.stringify([history.rows, incidents.rows]));
    const again = await post(ipnBody);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { status: string }).status, 'duplicate');
  });

  test('bad signature, missing signature, malformed answer, unknown order, removed account: 4xx, nothing changed', async () => {
    const { id, ipnBody } = await paidDeposit();
    const events = await eventCount(t);
    const without = new URLSearchParams(ipnBody);
    without.delete('kr-hash');
    const cases: [string, string, number][] = [
      ['signed with another key', resigned(ipnBody, () => undefined, 'testpassword_NOTTHEONE'), 401],
      ['amount changed after signing', ipnBody.replace('12345', '1'), 401],
      ['no signature', without.toString(), 401],
      ['kr-answer not JSON', resigned(ipnBody, () => undefined).replace(/kr-answer=[^&]*/, 'kr-answer=nope'), 401],
      ['no order named', resigned(ipnBody, (p) => delete p.orderDetails), 401],
      [
        'an order that is no request id',
        resigned(ipnBody, (p) => ((p.orderDetails as { orderId: string }).orderId = "x'; --")),
        401,
      ],
      [
        'an unknown order',
        resigned(ipnBody, (p) => ((p.orderDetails as { orderId: string }).orderId = randomUUID())),
        404,
      ],
      ['an empty body', '', 401],
    ];
    for (const [why, body, status] of cases) {
      const r = await post(body);
      assert.equal(r.status, status, why);
      assert.equal(typeof ((await r.json()) as { error: unknown }).error, 'string', why);
    }
    // The account removed: the notification, genuine as it is, has no key to be checked with.
    await t.repos.providerAccounts.remove(t.tenant.tenantId);
    try {
      assert.equal((await post(ipnBody)).status, 401, 'a tenant whose account was removed');
    } finally {
      await giveLyraAccount(t, t.tenant.tenantId, fake);
    }
    assert.equal(await statusOf(t, id), 'PENDING', 'nothing changed');
    assert.equal(await eventCount(t), events, 'nothing recorded');
    // The same genuine notification, once the account is back, is applied: the refusals were not the data's fault.
    assert.equal((await post(ipnBody)).status, 200);
    assert.equal(await statusOf(t, id), 'CAPTURED');
  });

  test('a signed notification with a currency, amount or status outside what Lyra documents: 401, nothing stored', async () => {
    const { id, ipnBody } = await paidDeposit();
    const events = await eventCount(t);
    // Each its own transaction: none is taken for a report of one seen before.
    const transaction = (change: (tx: Record<string, unknown>) => void) =>
      resigned(ipnBody, (p) => {
        const tx = (p.transactions as Record<string, unknown>[])[0] as Record<string, unknown>;
        tx.uuid = randomUUID().replaceAll('-', '');
        change(tx);
      });
    const cases: [string, string][] = [
      ['a currency that is no ISO 4217 code', transaction((tx) => (tx.currency = 'EURO'))],
      ['a currency in lower case', transaction((tx) => (tx.currency = 'eur'))],
      ['a detailedStatus Lyra does not document', transaction((tx) => (tx.detailedStatus = 'SOMETHING_NEW'))],
      ['an amount beyond any request payreq makes', transaction((tx) => (tx.amount = 100_000_001))],
      ['an amount no ledger row can hold', transaction((tx) => (tx.amount = 2 ** 31))],
    ];
    for (const [why, body] of cases) {
      const r = await post(body);
      const answer = (await r.json()) as { code: string };
      assert.equal(r.status, 401, `${why}: ${JSON.stringify(answer)}`);
      assert.equal(answer.code, 'invalid_notification', why);
    }
    const ledger = await t.db.query('SELECT currency FROM money_ledger WHERE payment_request_id = $1', [id]);
    assert.deepEqual(ledger.rows, [], 'no money stored');
    assert.equal(await eventCount(t), events, 'nothing recorded');
    assert.equal(await statusOf(t, id), 'PENDING');
    // The notification as Lyra signed it still applies.
    assert.equal((await post(ipnBody)).status, 200);
    assert.equal(await statusOf(t, id), 'CAPTURED');
  });

  test('a signed notification about something payreq does not apply (a refund) is acknowledged as ignored', async () => {
    const { id, ipnBody } = await paidDeposit();
    const refund = resigned(ipnBody, (p) => {
      const [tx] = p.transactions as Record<string, unknown>[];
      (tx as Record<string, unknown>).operationType = 'CREDIT';
    });
    const events = await eventCount(t);
    const r = await post(refund);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { status: string }).status, 'ignored');
    assert.equal(await statusOf(t, id), 'PENDING');
    assert.equal(await eventCount(t), events);
  });

  test('a payment WAITING_AUTHORISATION is not paid yet: its later refusal is applied, not ignored', async () => {
    const { id, ipnBody } = await paidDeposit();
    const waiting = resigned(ipnBody, (p) => {
      const [tx] = p.transactions as Record<string, unknown>[];
      Object.assign(tx as Record<string, unknown>, { detailedStatus: 'WAITING_AUTHORISATION', status: 'RUNNING' });
      p.orderStatus = 'RUNNING';
    });
    const first = await post(waiting);
    assert.equal(first.status, 200);
    assert.equal(((await first.json()) as { status: string }).status, 'ignored', 'in flight: nothing applied yet');
    assert.equal(await statusOf(t, id), 'PENDING');
    const refused = resigned(ipnBody, (p) => {
      const [tx] = p.transactions as Record<string, unknown>[];
      Object.assign(tx as Record<string, unknown>, {
        detailedStatus: 'REFUSED',
        status: 'UNPAID',
        errorCode: 'ACQ_001',
        detailedErrorCode: '51',
      });
      p.orderStatus = 'UNPAID';
    });
    const second = await post(refused);
    assert.equal(second.status, 200);
    assert.equal(await statusOf(t, id), 'REFUSED', 'the refusal is the answer');
    // The bank's answer is kept: on the request (its detail) and in the refusal's history row.
    const kept = await t.db.query<{ decline_reason: string; decline_code: string; detail: Record<string, unknown> }>(
      `SELECT p.decline_reason, p.decline_code, h.detail FROM payment_requests p
         JOIN status_history h ON h.payment_request_id = p.id AND h.to_status = 'REFUSED' WHERE p.id = $1`,
      [id],
    );
    assert.equal(kept.rows.length, 1);
    assert.equal(kept.rows[0]?.decline_reason, 'insufficient_funds', 'ACQ_001/51: the bank said insufficient funds');
    assert.equal(kept.rows[0]?.decline_code, 'ACQ_001/51');
    assert.equal(kept.rows[0]?.detail.decline_reason, 'insufficient_funds');
    assert.equal(kept.rows[0]?.detail.decline_code, 'ACQ_001/51');
  });

  test('a guest paying on a tab opened before the request was deleted: an incident, the money given back', async () => {
    const { id, ipnBody } = await paidDeposit();
    const deleted = await t.call({ method: 'DELETE', url: `/api/payment-requests/${id}/` });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const r = await post(ipnBody);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { status: string }).status, 'incident');
    assert.deepEqual(
      fake.store.order(id).map((x) => [x.operationType, x.detailedStatus]),
      [['DEBIT', 'CANCELLED']],
      'the payment given back at Lyra',
    );
  });

  test('the provider is built once per account version, and anew when the account changes', async () => {
    const registry = t.app.payreq.providers;
    const first = await registry.forTenant(t.tenant.tenantId);
    assert.equal(await registry.forTenant(t.tenant.tenantId), first);
    await giveLyraAccount(t, t.tenant.tenantId, fake);
    const second = await registry.forTenant(t.tenant.tenantId);
    assert.notEqual(second, first);
    assert.equal(second.name, 'lyra');
    const other = await t.newTenant('Sans compte');
    assert.equal((await registry.forTenant(other.tenantId)).name, 'sandbox', 'no account: the sandbox here');
  });
});

describe(`PAYMENT_PROVIDER=lyra: no sandbox to fall back on (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;
  before(async () => {
    fake = await startLyraFake();
    t = await startTestApp({ env: { PAYMENT_PROVIDER: 'lyra' } });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('a tenant with no real account cannot create: 422 provider_not_configured, nothing stored; with one it can', async () => {
    const before = await countRows(t.db, t.tenant.tenantId);
    const refused = await t.call({ method: 'POST', url: '/api/payment-requests/', payload: createBody() });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().code, 'provider_not_configured');
    assert.equal(await countRows(t.db, t.tenant.tenantId), before);
    await t.repos.providerAccounts.set(t.tenant.tenantId, { provider: 'sandbox' });
    const sandboxRow = await t.call({ method: 'POST', url: '/api/payment-requests/', payload: createBody() });
    assert.equal(sandboxRow.json().code, 'provider_not_configured', 'the sandbox is no real account');
    await assert.rejects(t.app.payreq.providers.forTenant(t.tenant.tenantId), /no payment provider account/);
    assert.equal(t.app.payreq.providers.byName('sandbox'), undefined, 'no sandbox routes either');
    // The back office's New request refuses it the same way, saying why, and stores nothing.
    await createUser(t, 'desk-lyra', t.tenant.tenantId);
    const desk = await new ControlClient(t, '10.8.0.9').signedIn('desk-lyra');
    const form = {
      request_type: 'IMPRINT',
      amount: '80',
      guest_first_name: 'Jeanne',
      guest_last_name: 'Martin',
      guest_email: 'jeanne.martin@example.com',
      reservation_ref: 'TEL-LYRA',
      checkin: '2026-12-24',
    };
    await desk.get('/control/requests/new');
    const office = await desk.post('/control/requests/new', form);
    assert.equal(office.statusCode, 422);
    assert.match(office.body, /This hotel has no payment provider account yet/);
    assert.equal(await countRows(t.db, t.tenant.tenantId), before);

    await giveLyraAccount(t, t.tenant.tenantId, fake);
    await createRequest(t);
    assert.equal(await countRows(t.db, t.tenant.tenantId), before + 1);
    await desk.get('/control/requests/new');
    assert.equal((await desk.post('/control/requests/new', form)).statusCode, 303);
    assert.equal(await countRows(t.db, t.tenant.tenantId), before + 2);
  });
});
