import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { checkBooks, defaultSince } from '../../src/money-audit/index.ts';
import type { StripeObject } from '../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

// The books check against Stripe, through the stateful fake: a deposit paid on Checkout and
// partly refunded, an imprint held and captured agree; a refund made in Stripe's dashboard
// (money given back that payreq never asked for) is a disagreement naming the request.
describe(`books check against the Stripe fake (${ENGINE})`, { timeout: 180_000 }, () => {
  let t: ListeningApp;
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake();
    t = await startListeningApp({ env: { PROVIDER_TIMEOUT_MS: '3000' } });
    await useStripeAccount(t, t.tenant.tenantId, fake);
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
  const status = async (id: string) =>
    ((await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json() as { status: string }).status;
  async function paid(type: 'DEPOSIT' | 'IMPRINT', want: string) {
    const c = await createRequest(t, { request_type: type, amount: 100, reservation_data: { checkin: '2026-12-12' } });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    await submitCheckout(visit, STRIPE_CARDS.visa);
    await eventually(async () => ((await status(c.uuid)) === want ? true : undefined), want);
    return c;
  }

  test('Checkout payments, refunds, holds and captures agree; a dashboard refund is a disagreement naming the request', async () => {
    const deposit = await paid('DEPOSIT', 'CAPTURED');
    const refund = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${deposit.uuid}/refund/`,
      payload: { amount: 30 },
    });
    assert.equal(refund.statusCode, 200, refund.body);
    const imprint = await paid('IMPRINT', 'AUTHORISED');
    await SCHEDULED_JOBS.create_deferred_payments!(t.app.payreq, new Date('2026-12-10T10:00:00Z'), 'Europe/Paris');
    const capture = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${imprint.uuid}/capture/`,
      payload: { amount: 40 },
    });
    assert.equal(capture.statusCode, 200, capture.body);
    const agree = await check();
    assert.deepEqual(agree.summary, { orders: 2, agree: 2, disagree: 0, in_doubt: 0 }, JSON.stringify(agree));

    const pi = [...fake.account.objects.values()].find(
      (o) => o.object === 'payment_intent' && (o.metadata as Record<string, string>).payreq_request === deposit.uuid,
    ) as StripeObject;
    fake.ops.refund({ paymentIntent: pi.id, amount: 1000, metadata: {} }, null);
    const differ = await check();
    assert.equal(differ.summary.disagree, 1, JSON.stringify(differ));
    assert.equal(differ.problems[0]?.detail.payment_request_id, deposit.uuid);
    assert.ok(differ.problems[0]?.detail.problems.includes('net_differs'));
  });
});
