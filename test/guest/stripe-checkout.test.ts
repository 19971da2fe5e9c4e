import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { backOnResultPage, openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { guestCall } from './guest-helpers.ts';

/**
 * A Stripe hotel's payment page: the hotel's page with a button to Stripe Checkout (a page
 * view opens no session), the session opened only when the guest presses it, and the result
 * page reading the session from Stripe when the guest comes back.
 */
describe(`the guest page of a Stripe hotel (${ENGINE})`, { timeout: 300_000 }, () => {
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
  const sessionsMade = () => fake.calls.filter((c) => c.route === 'POST /v1/checkout/sessions').length;
  const status = async (id: string) =>
    ((await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` })).json() as { status: string }).status;

  test('the page: TEST MODE, the button to Stripe in the guest’s language, Stripe’s hosts admitted as form targets; a view opens no session', async () => {
    const before = sessionsMade();
    for (const [language, words] of [
      ['en', /Continue to Stripe’s secure payment page/],
      ['fr', /Continuer vers la page de paiement sécurisée de Stripe/],
      ['de', /Weiter zur sicheren Zahlungsseite von Stripe/],
    ] as const) {
      const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 50, language });
      const page = await guestCall(t, c.payment_link);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, words);
      assert.match(page.body, new RegExp(`<form method="post" action="/payment/${c.uuid}/checkout/"`));
      assert.match(page.body, /class="test-mode"/);
      assert.doesNotMatch(page.body, /name="card_number"/, 'no card field on payreq’s page');
      const csp = String(page.headers['content-security-policy']);
      assert.match(
        csp,
        new RegExp(
          `form-action 'self' ${t.baseUrl} (https://checkout\\.stripe\\.com ${fake.apiUrl}|${fake.apiUrl} https://checkout\\.stripe\\.com)`,
        ),
        csp,
      );
      assert.equal(await status(c.uuid), 'PENDING', 'opening the page is opening the form');
    }
    assert.equal(sessionsMade(), before, 'no session for a page view');
  });

  test('the button opens one session and sends the guest there; a paid request’s button goes back to its page', async () => {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 80,
      reservation_data: { checkin: '2026-12-12' },
    });
    const before = sessionsMade();
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    assert.equal(sessionsMade(), before + 1);
    const done = await submitCheckout(visit, STRIPE_CARDS.visa);
    assert.equal(done.status, 303);
    await fake.idle();
    assert.equal(await status(c.uuid), 'AUTHORISED');
    const again = await guestCall(t, `/payment/${c.uuid}/checkout/`, { method: 'POST' });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/payment/${c.uuid}/`);
    assert.equal(sessionsMade(), before + 1, 'no session for a request that cannot be paid');
  });

  test('back from Checkout before the webhook: the result page asks Stripe and applies it; the webhook then changes nothing', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 64 });
    fake.holdWebhooks(true);
    try {
      const visit = await openCheckout(t, c.payment_link);
      assert.ok(visit);
      const done = await submitCheckout(visit, STRIPE_CARDS.mastercard);
      const page = await backOnResultPage(t, done.location ?? '');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Paiement reçu/, 'the request speaks French by default');
      assert.equal(await status(c.uuid), 'CAPTURED');
      const held = fake.takeHeld().filter((d) => d.event.type === 'checkout.session.completed');
      assert.equal(held.length, 1);
      const late = await fetch(held[0]?.url ?? '', { method: 'POST', headers: held[0]?.headers, body: held[0]?.body });
      assert.equal(((await late.json()) as { status: string }).status, 'duplicate');
    } finally {
      fake.holdWebhooks(false);
    }
  });

  test('a session id that is not the request’s, or not a session id: the result page shows the request as it stands', async () => {
    const paid = await createRequest(t, { request_type: 'DEPOSIT', amount: 12 });
    const other = await createRequest(t, { request_type: 'DEPOSIT', amount: 13 });
    const visit = await openCheckout(t, paid.payment_link);
    assert.ok(visit);
    await submitCheckout(visit, STRIPE_CARDS.visa);
    await fake.idle();
    await guestCall(t, other.payment_link);
    for (const q of [
      `session_id=${visit.sessionId}`,
      'session_id=%7BCHECKOUT_SESSION_ID%7D',
      'session_id=cs_nothing',
    ]) {
      const page = await guestCall(t, `/payment/${other.uuid}/result/?${q}`);
      assert.equal(page.statusCode, 200, q);
      assert.equal(await status(other.uuid), 'PENDING', q);
    }
  });

  test('Stripe away when the button is pressed: the guest reads that payment is unavailable for now (503, Retry-After)', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 20 });
    await guestCall(t, c.payment_link);
    fake.failNext('POST /v1/checkout/sessions', 'technical');
    try {
      const r = await guestCall(t, `/payment/${c.uuid}/checkout/`, { method: 'POST' });
      assert.equal(r.statusCode, 503);
      assert.equal(r.headers['retry-after'], '60');
    } finally {
      fake.clearFaults();
    }
  });
});
