import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeferredPayments, deferredHoldsRepository } from '../../src/holds/index.ts';
import { checkBooks } from '../../src/money-audit/index.ts';
import { HOLD_VALIDITY_MS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { guestPaysOnLyra } from '../fakes/lyra/guest-pays.ts';
import { type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { createRequest, ENGINE, startTestApp, type TestApp } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

// The books invariant looks both ways: no hold open where none may be, and the hold a request
// shows exists at the provider, open, its own, for its amount. A second hold that lands late is
// a disagreement that reconcile gives back (cancels), recorded on the request.
describe(`the books both ways, on Lyra (${ENGINE})`, { timeout: 120_000 }, () => {
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

  const find = (id: string) => t.repos.paymentRequests.find(t.tenant.tenantId, id);
  const books = () =>
    checkBooks(
      { repos: t.repos, providers: t.app.payreq.providers },
      { tenantId: t.tenant.tenantId, since: new Date(Date.now() - 3600_000) },
    );

  /** An IMPRINT whose card is saved on Lyra and held by the daily job. */
  async function held(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
    await arrangeStatus(t.db, c.uuid, 'PENDING');
    await guestPaysOnLyra(t, fake, c, { type: 'IMPRINT' });
    await createDeferredPayments(
      { holds: deferredHoldsRepository(t.db), runner: t.app.payreq.runner, cardTokens: t.app.payreq.cardTokens },
      D,
    );
    const row = await find(c.uuid);
    assert.equal(row?.status, 'AUTHORISED_TO_VALIDATE');
    const token = fake.store.order(c.uuid).find((x) => x.operationType === 'VERIFICATION')?.paymentMethodToken;
    assert.ok(token);
    return { id: c.uuid, hold: row?.provider_transaction_id as string, token };
  }

  test('a second hold landing late: a disagreement, given back by reconcile and recorded on the request', async () => {
    const { id, hold, token } = await held(120);
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined, 'one hold, its own: agreed');
    // A hold Lyra completed after payreq gave up on it (an earlier key), landing beside the live one.
    const late = fake.store.silentPayment({
      orderId: id,
      amount: 12000,
      currency: 'EUR',
      token,
      manualValidation: true,
      metadata: { payreq_key: 'hold:an-earlier-run' },
    });
    const problem = await t.app.payreq.reconciler.checkRequest(id);
    assert.match(problem?.problem ?? '', /a hold is open at the provider/);
    const before = await books();
    assert.deepEqual([before.summary.disagree, before.problems[0]?.detail.problems], [1, ['hold_open']]);

    const r = await t.app.payreq.reconciler.reconcile();
    assert.equal(r.given_back, 1, JSON.stringify(r));
    assert.equal(fake.store.get(late.uuid).detailedStatus, 'CANCELLED', 'the late hold is cancelled');
    assert.equal(fake.store.get(hold).detailedStatus, 'AUTHORISED_TO_VALIDATE', 'the live hold is kept');
    const history = await t.repos.paymentRequests.history(id);
    assert.ok(
      history.some((h) => h.to_status === 'INCIDENT'),
      'recorded on the request',
    );
    assert.equal((await find(id))?.status, 'AUTHORISED_TO_VALIDATE');
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
    const after = await books();
    assert.deepEqual([after.summary.disagree, after.summary.in_doubt], [0, 0], JSON.stringify(after.problems));
    // Given back once: the next run finds nothing to do.
    assert.equal((await t.app.payreq.reconciler.reconcile()).given_back, 0);
  });

  test('the hold a request shows has lapsed at the provider: a disagreement, never agreement', async () => {
    const { id, hold } = await held(80);
    fake.clock.set(new Date(Date.now() + HOLD_VALIDITY_MS + 60_000));
    try {
      assert.equal(fake.store.get(hold).detailedStatus, 'EXPIRED');
      const problem = await t.app.payreq.reconciler.checkRequest(id);
      assert.match(problem?.problem ?? '', /the request's hold is not open at the provider/);
      const report = await books();
      const mine = report.problems.find((p) => p.detail.payment_request_id === id);
      assert.deepEqual(mine?.detail.problems, ['hold_missing']);
    } finally {
      fake.clock.set(new Date());
    }
  });

  test('a request that ended with its hold still open at the provider: reconcile frees the card', async () => {
    const { id, hold } = await held(70);
    // The request was cancelled, but its release never reached Lyra (recorded by hand, say).
    await arrangeStatus(t.db, id, 'CANCELLED');
    const problem = await t.app.payreq.reconciler.checkRequest(id);
    assert.match(problem?.problem ?? '', /a hold is open at the provider/);
    const r = await t.app.payreq.reconciler.reconcile();
    assert.equal(r.given_back, 1, JSON.stringify(r));
    assert.equal(fake.store.get(hold).detailedStatus, 'CANCELLED', "the guest's card is freed");
    assert.equal(await t.app.payreq.reconciler.checkRequest(id), undefined);
  });
});
