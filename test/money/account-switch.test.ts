import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { useLyraShop } from '../fakes/lyra/give-account.ts';
import { DEMO_SHOP, DEMO_SHOP_PRODUCTION, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { createRequest, ENGINE, startTestApp, type TenantWithKey, type TestApp } from '../helpers/test-app.ts';

const JOB_DATE = '2026-12-10';
const CHECKIN = '2026-12-12';

// A hotel goes live: its PRODUCTION keys replace its TEST ones, and the TEST account keeps the
// transactions made on it. A capture, a release or a refund of one of them, and the give-back of
// money that arrived on it, must go to the TEST account, which alone knows the transaction (the
// PRODUCTION one answers PSP_010); a guest paying after go-live on a form handed out before pays
// the TEST account, and its notification, signed with the TEST password, is that account's.
describe(`Lyra: money of the account a hotel left goes to that account (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;
  let production: ReturnType<LyraFake['addShop']>;
  before(async () => {
    fake = await startLyraFake(DEMO_SHOP);
    production = fake.addShop(DEMO_SHOP_PRODUCTION);
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const goLive = (hotel: TenantWithKey) => useLyraShop(t, hotel.tenantId, fake, DEMO_SHOP_PRODUCTION);

  async function hotelOnTest(name: string) {
    const hotel = await t.newTenant(name);
    const test = await useLyraShop(t, hotel.tenantId, fake, DEMO_SHOP);
    return { hotel, testVersion: test.version };
  }

  /** The form Lyra hands out for the request now (on the hotel's account of the moment). */
  async function formOf(hotel: TenantWithKey, r: { uuid: string; reference: string }, type: 'IMPRINT' | 'DEPOSIT') {
    const lyra = await t.app.payreq.providers.forTenant(hotel.tenantId);
    const form = await lyra.startGuestPayment({
      paymentRequestId: r.uuid,
      reference: r.reference,
      requestType: type,
      amountCents: type === 'DEPOSIT' ? 8000 : 0,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hotel Test',
      returnUrl: `http://127.0.0.1/payment/${r.uuid}/result/`,
      notifyUrl: 'http://127.0.0.1/ipn/lyra/',
    });
    return formTokenOf(form);
  }

  /** The guest completes the form; Lyra's notification is posted to payreq's IPN endpoint. */
  async function guestPays(formToken: string): Promise<{ status: number; outcome: string }> {
    const { ipnBody } = fake.completeForm(formToken, LYRA_CARDS.accepted);
    const r = await t.app.inject({
      method: 'POST',
      url: '/ipn/lyra/',
      payload: ipnBody,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { status: r.statusCode, outcome: r.json().status };
  }

  const row = (id: string) => t.repos.paymentRequests.findAnyTenant(id);
  const on = (store: typeof fake.store, id: string) =>
    store.order(id).map((x) => [x.operationType, x.detailedStatus, x.amount, x.refundAmount ?? 0]);
  /** The calls about the order (or one of its TEST transactions) that went anywhere but the TEST account. */
  const notOnTest = (id: string) =>
    fake.calls
      .filter((c) => c.body.orderId === id || fake.store.order(id).some((x) => x.uuid === c.body.uuid))
      .filter((c) => c.mode !== 'TEST')
      .map((c) => c.service);
  const booksAgree = async (id: string) =>
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, "payreq's books agree with Lyra's");

  test('holds placed before go-live: one captured, one released after it, on the TEST account', async () => {
    const { hotel } = await hotelOnTest('Hôtel du Lancement');
    const imprint = () =>
      createRequest(t, { request_type: 'IMPRINT', amount: 80, reservation_data: { checkin: CHECKIN } }, hotel);
    const [kept, freed] = [await imprint(), await imprint()];
    for (const r of [kept, freed]) assert.equal((await guestPays(await formOf(hotel, r, 'IMPRINT'))).status, 200);
    await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      JOB_DATE,
    );
    assert.equal((await row(kept.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    await goLive(hotel);

    const capture = await t.call({ method: 'POST', url: `/api/payment-requests/${kept.uuid}/capture/`, tenant: hotel });
    assert.equal(capture.statusCode, 200, capture.body);
    const release = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${freed.uuid}/release/`,
      tenant: hotel,
    });
    assert.equal(release.statusCode, 200, release.body);

    assert.deepEqual([(await row(kept.uuid))?.status, (await row(kept.uuid))?.amount_captured], ['CAPTURED', 8000]);
    assert.equal((await row(freed.uuid))?.status, 'CANCELLED');
    assert.deepEqual(on(fake.store, kept.uuid).at(-1), ['DEBIT', 'AUTHORISED', 8000, 0], 'validated on TEST');
    assert.deepEqual(on(fake.store, freed.uuid).at(-1), ['DEBIT', 'CANCELLED', 8000, 0], 'cancelled on TEST');
    assert.deepEqual(notOnTest(kept.uuid), []);
    assert.deepEqual(notOnTest(freed.uuid), []);
    await booksAgree(kept.uuid);
    await booksAgree(freed.uuid);
  });

  test('a deposit paid before go-live is refunded after it on the TEST account, in part then in full', async () => {
    const { hotel } = await hotelOnTest('Hôtel de la Recette');
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 }, hotel);
    assert.equal((await guestPays(await formOf(hotel, r, 'DEPOSIT'))).outcome, 'applied');
    await goLive(hotel);
    const tenant = { tenantId: hotel.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 };
    const admin = { source: 'admin' as const, actor: 'user:test' };

    await t.app.payreq.commands.refund(tenant, r.uuid, 30, admin);
    assert.deepEqual(on(fake.store, r.uuid), [['DEBIT', 'AUTHORISED', 5000, 0]], 'the payment lowered on TEST');
    fake.store.runBatch();
    await t.app.payreq.commands.refund(tenant, r.uuid, undefined, admin);
    assert.deepEqual((await row(r.uuid))?.status, 'REFUNDED');
    assert.deepEqual(on(fake.store, r.uuid).at(-1), ['CREDIT', 'AUTHORISED', 5000, 0], 'the rest as a CREDIT on TEST');
    assert.deepEqual(on(production, r.uuid), [], 'nothing on PRODUCTION');
    await booksAgree(r.uuid);
  });

  test('a guest paying after go-live on a form handed out before: applied as the TEST account’s, refunded there', async () => {
    const { hotel, testVersion } = await hotelOnTest('Hôtel du Vieil Onglet');
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 }, hotel);
    const oldForm = await formOf(hotel, r, 'DEPOSIT');
    await goLive(hotel);

    assert.deepEqual(await guestPays(oldForm), { status: 200, outcome: 'applied' });
    assert.deepEqual([(await row(r.uuid))?.status, (await row(r.uuid))?.amount_captured], ['CAPTURED', 8000]);
    const ledger = await t.repos.ledger.forRequest(r.uuid);
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.provider_account]),
      [['payment', testVersion]],
      'the payment is recorded on the account that took it',
    );
    await booksAgree(r.uuid);
    await t.app.payreq.commands.refund(
      { tenantId: hotel.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 },
      r.uuid,
      undefined,
      { source: 'admin', actor: 'user:test' },
    );
    assert.deepEqual(on(fake.store, r.uuid), [['DEBIT', 'CANCELLED', 8000, 0]]);
    await booksAgree(r.uuid);
  });

  test('money arriving after go-live on an old form of a cancelled request is given back on the TEST account', async () => {
    const { hotel } = await hotelOnTest('Hôtel des Regrets');
    const r = await createRequest(t, { request_type: 'DEPOSIT', amount: 80 }, hotel);
    const oldForm = await formOf(hotel, r, 'DEPOSIT');
    const cancel = await t.call({ method: 'POST', url: `/api/payment-requests/${r.uuid}/cancel/`, tenant: hotel });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await goLive(hotel);

    assert.deepEqual(await guestPays(oldForm), { status: 200, outcome: 'incident' });
    assert.deepEqual(on(fake.store, r.uuid), [['DEBIT', 'CANCELLED', 8000, 0]], 'given back on TEST');
    const giveBack = (await t.repos.ledger.forRequest(r.uuid)).find((e) => e.parent_id !== null);
    assert.equal(giveBack?.state, 'succeeded', JSON.stringify(giveBack));
    assert.equal((await row(r.uuid))?.status, 'CANCELLED');
    await booksAgree(r.uuid);
  });

  const job = () =>
    createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      JOB_DATE,
    );

  test('a card registered on TEST and held after go-live is held on the TEST account, which knows its token', async () => {
    const { hotel } = await hotelOnTest('Hôtel du Jeton');
    const r = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 80, reservation_data: { checkin: CHECKIN } },
      hotel,
    );
    assert.equal((await guestPays(await formOf(hotel, r, 'IMPRINT'))).status, 200);
    await goLive(hotel);
    const run = await job();
    assert.equal(run.held, 1, JSON.stringify(run));
    assert.equal((await row(r.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    assert.deepEqual(notOnTest(r.uuid), [], 'no call went to the PRODUCTION shop, which would answer PSP_030');
    assert.deepEqual(on(production, r.uuid), []);
    await booksAgree(r.uuid);
  });

  test('a card registered on an account payreq no longer has: a failed guarantee the hotel can act on', async () => {
    const { hotel, testVersion } = await hotelOnTest('Hôtel Disparu');
    const r = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 80, reservation_data: { checkin: CHECKIN } },
      hotel,
    );
    assert.equal((await guestPays(await formOf(hotel, r, 'IMPRINT'))).status, 200);
    await goLive(hotel);
    // The TEST account's record is gone (removed by hand): nobody can ask it anything.
    await t.db.query('DELETE FROM provider_account_versions WHERE tenant_id = $1 AND version = $2', [
      hotel.tenantId,
      testVersion,
    ]);
    const run = await job();
    assert.equal(run.held, 0, JSON.stringify(run));
    const failed = await row(r.uuid);
    assert.deepEqual([failed?.status, failed?.guarantee_failures], ['ERROR', 1]);
    const hold = await t.db.query<{ state: string; error: string }>(
      "SELECT state, error FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [r.uuid],
    );
    assert.equal(hold.rows[0]?.state, 'refused');
    assert.match(hold.rows[0]?.error ?? '', /registered on an account this hotel no longer has/);
    // Nothing was asked of any shop.
    assert.equal(fake.calls.filter((c) => c.body.orderId === r.uuid && c.service === 'Charge/CreatePayment').length, 0);
  });

  test('rows written before accounts were recorded are given theirs by reconcile, asked of Lyra, never guessed', async () => {
    const { hotel, testVersion } = await hotelOnTest('Hôtel Ancien');
    const r = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 80, reservation_data: { checkin: CHECKIN } },
      hotel,
    );
    assert.equal((await guestPays(await formOf(hotel, r, 'IMPRINT'))).status, 200);
    await job();
    await goLive(hotel);
    // As if written before payreq recorded accounts: read with the current (PRODUCTION) one,
    // where the hold looks absent.
    await t.db.query('UPDATE money_ledger SET provider_account = NULL WHERE payment_request_id = $1', [r.uuid]);
    const absent = await t.app.payreq.reconciler.checkRequest(r.uuid);
    assert.match(absent?.problem ?? '', /hold is not open/, 'read with the current account, the hold looks absent');
    const run = await t.app.payreq.reconciler.reconcile();
    assert.equal(run.accounts_found, 2, JSON.stringify(run));
    const accounts = await t.db.query<{ kind: string; provider_account: number | null }>(
      'SELECT kind, provider_account FROM money_ledger WHERE payment_request_id = $1 ORDER BY id',
      [r.uuid],
    );
    assert.deepEqual(
      accounts.rows.map((x) => [x.kind, x.provider_account]),
      [
        ['verification', testVersion],
        ['hold', testVersion],
      ],
    );
    await booksAgree(r.uuid);
    const capture = await t.call({ method: 'POST', url: `/api/payment-requests/${r.uuid}/capture/`, tenant: hotel });
    assert.equal(capture.statusCode, 200, capture.body);
    assert.deepEqual(
      notOnTest(r.uuid).filter((service) => service !== 'Order/Get'),
      [],
      'the capture went to the TEST account (each account was only asked for the order)',
    );
    assert.equal((await row(r.uuid))?.status, 'CAPTURED');
  });
});
