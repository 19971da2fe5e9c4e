import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/domain/index.ts';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { checkBooks, defaultSince } from '../../src/money-audit/index.ts';
import { providerSecrets } from '../../src/secrets/index.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { DEMO_SHOP_PRODUCTION, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const CHECKIN = '2026-12-10';

// The books check against Lyra, through the wire-level fake: a card saved on Lyra's form, the
// daily hold, a capture through the API agree; a hold validated in Lyra's back office (money
// taken that payreq never asked for) is a disagreement naming the request.
describe(`books check against the Lyra fake (${ENGINE})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: LyraFake;

  before(async () => {
    fake = await startLyraFake();
    t = await startTestApp();
    await giveLyraAccount(t, t.tenant.tenantId, fake, { staticUrl: false });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const check = () =>
    checkBooks(
      { repos: t.repos, providers: t.app.payreq.providers },
      { tenantId: t.tenant.tenantId, since: defaultSince(new Date()) },
    );

  /** An IMPRINT whose guest saved a card on Lyra's form, then held by the daily job. */
  async function heldOnLyra(): Promise<{ id: string; reference: string; hold: string }> {
    const created = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 80,
      reservation_data: { checkin: CHECKIN },
    });
    await arrangeStatus(t.db, created.uuid, 'PENDING');
    const lyra = await t.app.payreq.providers.forTenant(t.tenant.tenantId);
    const form = await lyra.startGuestPayment({
      paymentRequestId: created.uuid,
      reference: created.reference,
      requestType: 'IMPRINT',
      amountCents: 0,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hotel Test',
      returnUrl: `http://127.0.0.1/pay/${created.uuid}/result`,
      notifyUrl: 'http://127.0.0.1/ipn/lyra/',
    });
    const { ipnBody } = fake.completeForm(formTokenOf(form), LYRA_CARDS.accepted);
    assert.equal(await t.app.payreq.notifications.apply('lyra', lyra.parseNotification(ipnBody, {})), 'applied');
    const job = await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      addDays(CHECKIN, -2),
    );
    assert.equal(job.held, 1, JSON.stringify(job));
    const row = await t.repos.paymentRequests.findAnyTenant(created.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    assert.ok(row?.provider_transaction_id);
    return { id: created.uuid, reference: created.reference, hold: row.provider_transaction_id };
  }

  test('a saved card, a hold, and a capture through the API agree', async () => {
    const captured = await heldOnLyra();
    await heldOnLyra();
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${captured.id}/capture/` });
    assert.equal(r.statusCode, 200, r.body);
    const result = await check();
    assert.deepEqual(result.summary, { orders: 2, agree: 2, disagree: 0, in_doubt: 0 }, JSON.stringify(result));
  });

  test("a hold validated in Lyra's back office is money the ledger does not know", async () => {
    const r1 = await heldOnLyra();
    fake.store.validate(r1.hold, 'validated by hand in the back office');
    const result = await check();
    assert.equal(result.summary.disagree, 1, JSON.stringify(result));
    const line = result.problems.find((p) => p.detail.reference === r1.reference);
    assert.ok(line, JSON.stringify(result.problems));
    assert.equal(line.detail.provider_net, 8000);
    assert.equal(line.detail.payreq_net, 0);
    // Both ways: the money taken, and the hold payreq shows no longer open.
    assert.deepEqual(line.detail.problems, ['net_differs', 'hold_missing']);
  });

  // Last: it moves the tenant to another account for good.
  test('after go-live, an order of the TEST account is still asked of the TEST account', async () => {
    const old = await heldOnLyra();
    fake.addShop(DEMO_SHOP_PRODUCTION);
    await t.repos.providerAccounts.set(t.tenant.tenantId, {
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
        t.tenant.tenantId,
      ),
    });
    // Money taken by hand on the TEST account: only that account can show it.
    fake.store.validate(old.hold, 'validated by hand on the TEST account after go-live');
    const result = await check();
    const line = result.problems.find((p) => p.detail.reference === old.reference);
    assert.ok(line, `the TEST account's capture is seen: ${JSON.stringify(result.problems)}`);
    assert.equal(line.detail.provider_net, 8000);
    assert.deepEqual(line.detail.problems, ['net_differs', 'hold_missing']);
  });
});
