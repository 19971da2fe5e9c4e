import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

/** The Stripe adapter's own answers to what Stripe can do besides deciding: its rate limiter. */
describe(`the Stripe adapter, Stripe's rate limiter (${ENGINE})`, { timeout: 300_000 }, () => {
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
  const status = async (id: string) =>
    ((await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json() as { status: string }).status;
  async function registered() {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount: 75, reservation_data: { checkin: CHECKIN } });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    await submitCheckout(visit, STRIPE_CARDS.visa);
    await eventually(async () => ((await status(c.uuid)) === 'AUTHORISED' ? true : undefined), 'registered');
    return c;
  }
  const job = () => SCHEDULED_JOBS.create_deferred_payments!(t.app.payreq, new Date(`${D}T10:00:00Z`), 'Europe/Paris');

  test('429s (nothing done) are tried again, paced, with the operation’s key: the hold is placed once', async () => {
    const c = await registered();
    fake.failNext('POST /v1/payment_intents', 'throttled');
    fake.failNext('POST /v1/payment_intents', 'throttled');
    const r = await job();
    assert.equal(r.held, 1, JSON.stringify(r));
    assert.equal(await status(c.uuid), 'AUTHORISED_TO_VALIDATE');
    const tries = fake.calls.filter(
      (x) =>
        x.route === 'POST /v1/payment_intents' &&
        (x.params.metadata as Record<string, string>).payreq_request === c.uuid,
    );
    assert.equal(tries.length, 3);
    assert.equal(new Set(tries.map((x) => x.idempotencyKey)).size, 1, 'one key');
  });

  test('Stripe refusing the load for longer than a try: technical, nothing moved, the claim given back for the next run', async () => {
    const c = await registered();
    fake.failNext('POST /v1/payment_intents', 'technical');
    try {
      const r = await job();
      assert.equal(r.failed, 1, JSON.stringify(r));
    } finally {
      fake.clearFaults();
    }
    assert.equal(await status(c.uuid), 'AUTHORISED');
    const claimed = await t.db.query<{ pending_action: string | null }>(
      'SELECT pending_action FROM payment_requests WHERE id = $1',
      [c.uuid],
    );
    assert.equal(claimed.rows[0]?.pending_action, null);
    const again = await job();
    assert.equal(again.held, 1, 'the next run holds it');
  });
});
