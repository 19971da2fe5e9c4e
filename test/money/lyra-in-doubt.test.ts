import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { providerSecrets } from '../../src/secrets/index.ts';
import { DECLINE_CODES, LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { guestPaysOnLyra } from '../fakes/lyra/guest-pays.ts';
import { DEMO_SHOP_PRODUCTION, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

// Lyra's operations whose answer never came, settled by Lyra's own truth: a refund the same day
// cancels or lowers the payment itself, a capture is the hold's captured state, a status the
// adapter does not know is in doubt, and reconcile asks the account that made the transaction.
describe(`Lyra: operations in doubt settled by Lyra's order view (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;
  before(async () => {
    fake = await startLyraFake();
    t = await startTestApp({ env: { PROVIDER_TIMEOUT_MS: '1000' } });
    await giveLyraAccount(t, t.tenant.tenantId, fake);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const tenant = () => ({ tenantId: t.tenant.tenantId, timezone: 'Europe/Paris', linkLifetimeDays: 30 });
  const admin = { source: 'admin' as const, actor: 'user:test' };
  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const calls = (service: string, orderId: string) =>
    fake.calls.filter(
      (c) =>
        c.service === service &&
        (c.body.orderId === orderId || String(c.body.comment ?? '').includes(orderId.slice(0, 8))),
    ).length;
  const rejects504 = (p: Promise<unknown>) =>
    assert.rejects(p, (err: { code?: string }) => err.code === 'outcome_unknown');
  /** The grace is over: the operation's call can no longer be under way. */
  const graceOver = (id: string) =>
    t.db.query("UPDATE money_ledger SET updated_at = now() - interval '1 day' WHERE payment_request_id = $1", [id]);
  const reconcileAgrees = async (id: string) => {
    await graceOver(id);
    const r = await t.app.payreq.reconciler.reconcile();
    const open = await t.db.query(
      "SELECT kind, state FROM money_ledger WHERE payment_request_id = $1 AND state IN ('requested', 'in_doubt')",
      [id],
    );
    assert.deepEqual(open.rows, [], `settled: ${JSON.stringify(r)}`);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, 'the books agree with Lyra');
  };

  /** Starts the guest's Lyra form for a request and completes it with `pan`; the notification applied. */
  const guestPays = (
    id: string,
    reference: string,
    type: 'IMPRINT' | 'DEPOSIT',
    cents: number,
    tenantId = t.tenant.tenantId,
    pan: string = LYRA_CARDS.accepted,
  ) => guestPaysOnLyra(t, fake, { uuid: id, reference }, { type, cents, pan, tenantId });

  async function paidDeposit(amount: number) {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'DEPOSIT', amount * 100);
    assert.equal((await find(c.uuid))?.status, 'CAPTURED');
    return c.uuid;
  }

  test('a same-day partial refund whose answer is lost: done (the payment lowered), never refunded twice', async () => {
    const id = await paidDeposit(200);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    const once = { retryKey: `same-day:${id}` };
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 50, admin, once));
    await reconcileAgrees(id);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_refunded, row?.pending_action], ['CAPTURED', 5000, null]);
    // The retry is the same refund: it answers what happened and moves nothing.
    await t.app.payreq.commands.refund(tenant(), id, 50, admin, once);
    assert.equal(calls('Transaction/CancelOrRefund', id), 1);
    assert.equal((await find(id))?.amount_refunded, 5000);
    const payment = [...fake.store.order(id)];
    assert.deepEqual(
      payment.map((p) => [p.operationType, p.amount]),
      [['DEBIT', 15000]],
    );
  });

  test('a same-day full refund whose answer is lost: the payment cancelled is the refund', async () => {
    const id = await paidDeposit(120);
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, undefined, admin));
    await reconcileAgrees(id);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_refunded], ['REFUNDED', 12000]);
  });

  test('a refund after the remittance whose answer is lost: the CREDIT is the refund', async () => {
    const id = await paidDeposit(90);
    fake.store.runBatch();
    fake.failNext('Transaction/CancelOrRefund', 'lose');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 30, admin));
    await reconcileAgrees(id);
    assert.equal((await find(id))?.amount_refunded, 3000);
  });

  test('a refund that never reached Lyra is not done: the claim is free and the retry refunds once', async () => {
    const id = await paidDeposit(80);
    fake.failNext('Transaction/CancelOrRefund', 'hang');
    await rejects504(t.app.payreq.commands.refund(tenant(), id, 20, admin));
    await reconcileAgrees(id);
    assert.deepEqual([(await find(id))?.amount_refunded, (await find(id))?.pending_action], [0, null]);
    await t.app.payreq.commands.refund(tenant(), id, 20, admin);
    assert.equal((await find(id))?.amount_refunded, 2000);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  /** An IMPRINT of the default hotel whose card is saved on Lyra and held by the daily job. */
  async function heldOnLyra(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'IMPRINT', 0);
    await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.equal((await find(c.uuid))?.status, 'AUTHORISED_TO_VALIDATE');
    return c.uuid;
  }

  test('a hold the issuer refused, whose answer was lost: reconcile makes it a failed guarantee, not a hold', async () => {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 70, reservation_data: { checkin: CHECKIN } });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    // The card registers fine; then the bank refuses every payment on it for good: stolen
    // (ACQ_001, 43). A soft reason would be tried again instead (test/providers/contract.test.ts).
    await guestPays(c.uuid, c.reference, 'IMPRINT', 0, t.tenant.tenantId, LYRA_CARDS.refusedLater);
    const token = fake.store.order(c.uuid).find((x) => x.paymentMethodToken)?.paymentMethodToken;
    assert.ok(token, 'the saved card');
    fake.store.refuseCardFromNowOn(token, DECLINE_CODES.stolenCard);
    fake.failNext('Charge/CreatePayment', 'lose');
    const run = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    assert.equal(run.in_doubt, 1, JSON.stringify(run));
    const refused = fake.store.order(c.uuid).find((x) => x.operationType === 'DEBIT');
    assert.equal(refused?.detailedStatus, 'REFUSED', 'Lyra recorded the refused hold, with our key');
    await graceOver(c.uuid);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.equal(r.refused, 1, JSON.stringify(r));
    const row = await find(c.uuid);
    assert.deepEqual(
      [row?.status, row?.guarantee_failures, row?.pending_action],
      ['ERROR', 1, null],
      'a failed guarantee, the claim given back',
    );
    const hold = await t.db.query(
      `SELECT state, answer_transaction_id, provider_status, decline_code FROM money_ledger
        WHERE payment_request_id = $1 AND kind = 'hold'`,
      [c.uuid],
    );
    assert.deepEqual(hold.rows, [
      {
        state: 'refused',
        answer_transaction_id: refused?.uuid,
        provider_status: 'REFUSED',
        decline_code: 'ACQ_001/43',
      },
    ]);
    const events = await t.db.query<{ type: string }>(
      "SELECT type FROM events WHERE payment_request_id = $1 AND type = 'payment_request.guarantee_failed'",
      [c.uuid],
    );
    assert.equal(events.rows.length, 1, 'the event payment_request.guarantee_failed');
    const mails = await t.db.query<{ kind: string }>(
      "SELECT kind FROM email_outbox WHERE payment_request_id = $1 AND kind = 'guarantee_failed_guest'",
      [c.uuid],
    );
    assert.equal(mails.rows.length, 1, 'the guest is asked for another card');
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined, 'the books agree with Lyra');
  });

  test('a capture answered with a status the adapter does not know is in doubt, then settled captured', async () => {
    const id = await heldOnLyra(100);
    fake.failNext('Transaction/Validate', { answerStatus: 'SOMETHING_NEW' });
    await rejects504(t.app.payreq.commands.capture(tenant(), id, undefined, admin));
    assert.equal((await find(id))?.pending_action, 'capture', 'the claim is kept');
    await reconcileAgrees(id);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_captured], ['CAPTURED', 10000]);
  });

  test('a partial capture whose Validate fails after the hold was lowered: in doubt, then not done; the retry captures', async () => {
    const id = await heldOnLyra(100);
    fake.failNext('Transaction/Validate', 'technical');
    await rejects504(t.app.payreq.commands.capture(tenant(), id, 40, admin));
    await graceOver(id);
    await t.app.payreq.reconciler.reconcile();
    assert.deepEqual([(await find(id))?.status, (await find(id))?.pending_action], ['AUTHORISED_TO_VALIDATE', null]);
    // Nothing was captured, but the hold is lowered at Lyra: the guarantee is not what payreq
    // shows, and the check says so until the capture is made.
    const lowered = await t.app.payreq.reconciler.checkRequest(id);
    assert.match(lowered?.problem ?? '', /the request's hold is open for another amount/);
    await t.app.payreq.commands.capture(tenant(), id, 40, admin);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_captured], ['CAPTURED', 4000]);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });

  test('a partial capture whose Validate answer is lost: settled captured at the lowered amount', async () => {
    const id = await heldOnLyra(100);
    fake.failNext('Transaction/Validate', 'lose');
    await rejects504(t.app.payreq.commands.capture(tenant(), id, 25, admin));
    await reconcileAgrees(id);
    const row = await find(id);
    assert.deepEqual([row?.status, row?.amount_captured], ['CAPTURED', 2500]);
  });

  test('a hold in doubt when the hotel goes live: reconcile finds it on the TEST account, no second hold', async () => {
    const hotel = await t.newTenant('Hôtel de la Bascule');
    await giveLyraAccount(t, hotel.tenantId, fake);
    const c = await createRequest(
      t,
      { request_type: 'IMPRINT', amount: 150, reservation_data: { checkin: CHECKIN } },
      hotel,
    );
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPays(c.uuid, c.reference, 'IMPRINT', 0, hotel.tenantId);
    const job = () =>
      createDeferredPayments(
        { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
        D,
      );
    const silent = () =>
      fake.calls.filter((x) => x.service === 'Charge/CreatePayment' && x.body.orderId === c.uuid).length;
    fake.failNext('Charge/CreatePayment', 'lose');
    assert.equal((await job()).in_doubt, 1);
    // Go-live: the hotel's PRODUCTION keys replace its TEST ones.
    fake.addShop(DEMO_SHOP_PRODUCTION);
    await t.repos.providerAccounts.set(hotel.tenantId, {
      provider: 'lyra',
      shopId: DEMO_SHOP_PRODUCTION.shopId,
      apiUrl: fake.apiUrl,
      staticUrl: fake.staticUrl,
      mode: 'PRODUCTION',
      secretsSealed: providerSecrets(t.app.payreq.secretKeys).seal(
        JSON.stringify({
          password: DEMO_SHOP_PRODUCTION.password,
          public_key: DEMO_SHOP_PRODUCTION.publicKey,
          hmac_key: DEMO_SHOP_PRODUCTION.hmacKey,
        }),
        hotel.tenantId,
      ),
    });
    await reconcileAgrees(c.uuid);
    const row = await t.repos.paymentRequests.find(hotel.tenantId, c.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE', 'the hold placed on the TEST account is recorded');
    assert.equal((await job()).held, 0);
    assert.equal(silent(), 1, 'one hold asked, on the account that made it');
    assert.ok(fake.calls.filter((x) => x.body.orderId === c.uuid).every((x) => x.mode === 'TEST'));
  });
});
