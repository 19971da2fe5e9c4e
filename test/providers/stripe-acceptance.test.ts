import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { sendDueEmails } from '../../src/mail/index.ts';
import type { StripeObject } from '../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { backOnResultPage, openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { guestCall } from '../guest/guest-helpers.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import { type SmtpSink, startSmtpSink } from '../mail/smtp-sink.ts';

/** The daily job's day, and the check-in two days later it holds for. */
const D = '2026-12-10';
const CHECKIN = '2026-12-12';

type Detail = Record<string, unknown> & { status: string };

/**
 * A hotel on Stripe, end to end over real HTTP between payreq and the Stripe fake, the guest
 * on the fake's Checkout page: the acceptance scenario, step by step (a wrong key is
 * test/cli/stripe-provider-commands.test.ts's).
 */
describe(`a hotel on Stripe, the issue's scenario (${ENGINE})`, { timeout: 300_000 }, () => {
  let t: ListeningApp;
  let fake: StripeFake;
  let smtp: SmtpSink;
  before(async () => {
    fake = await startStripeFake();
    smtp = await startSmtpSink();
    t = await startListeningApp({ env: { PROVIDER_TIMEOUT_MS: '3000', TRUST_PROXY: 'true', SMTP_URL: smtp.url } });
    await useStripeAccount(t, t.tenant.tenantId, fake);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await smtp?.close();
  });

  const detail = async (id: string): Promise<Detail> => {
    const r = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  const objects = (kind: string, orderId: string) =>
    [...fake.account.objects.values()].filter(
      (o) => o.object === kind && (o.metadata as Record<string, string> | undefined)?.payreq_request === orderId,
    );
  const dailyJob = (day = D) =>
    SCHEDULED_JOBS.create_deferred_payments!(t.app.payreq, new Date(`${day}T10:00:00Z`), 'Europe/Paris');

  /** The guest pays or saves `card` on Checkout; the webhook applies it. */
  async function guestOnCheckout(paymentLink: string, card: string = STRIPE_CARDS.visa) {
    const visit = await openCheckout(t, paymentLink);
    assert.ok(visit, 'the page sends the guest to Checkout');
    const done = await submitCheckout(visit, card);
    return { visit, done };
  }

  async function registered(amount: number, card: string = STRIPE_CARDS.visa) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
    const { done } = await guestOnCheckout(c.payment_link, card);
    assert.equal(done.status, 303, JSON.stringify(done));
    await eventually(async () => ((await detail(c.uuid)).status === 'AUTHORISED' ? true : undefined), 'registered');
    return c;
  }

  test('the account: the key checked, payreq’s webhook endpoint created at Stripe for /ipn/stripe/ with its events', async () => {
    const endpoints = [...fake.account.objects.values()].filter((o) => o.object === 'webhook_endpoint');
    assert.equal(endpoints.length, 1);
    assert.equal(endpoints[0]?.url, `${t.baseUrl}/ipn/stripe/`);
    assert.ok(((endpoints[0]?.enabled_events ?? []) as string[]).includes('checkout.session.completed'));
    const row = await t.repos.providerAccounts.find(t.tenant.tenantId);
    assert.equal(row?.provider, 'stripe');
    assert.equal(row?.mode, 'TEST');
    assert.equal(row?.webhook_endpoint_id, endpoints[0]?.id);
    assert.ok(
      fake.calls.some((c) => c.route === 'GET /v1/payment_intents'),
      'the key was tried',
    );
  });

  test('a DEPOSIT paid on Checkout (TEST MODE on the page), partly refunded through the API: Stripe holds exactly what payreq shows', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 120.5, language: 'fr' });
    const page = await guestCall(t, c.payment_link);
    assert.match(page.body, /MODE TEST/);
    assert.match(page.body, /page de paiement sécurisée de Stripe/);
    const { visit, done } = await guestOnCheckout(c.payment_link);
    assert.equal(done.status, 303, JSON.stringify(done));
    assert.equal(done.location, `${t.baseUrl}/payment/${c.uuid}/result/?session_id=${visit.sessionId}`);
    // The session the page made: the request's uuid, its metadata, the guest's language, the currency.
    const session = fake.account.objects.get(visit.sessionId) as StripeObject;
    assert.equal(session.client_reference_id, c.uuid);
    assert.equal((session.metadata as Record<string, string>).payreq_request, c.uuid);
    assert.equal(session.locale, 'fr');
    assert.equal(session.currency, 'eur');
    assert.equal(session.cancel_url, `${t.baseUrl}/payment/${c.uuid}/`);
    // The result page reads the session; the webhook records the same outcome: applied once.
    const result = await backOnResultPage(t, done.location ?? '');
    assert.equal(result.statusCode, 200);
    await eventually(async () => ((await detail(c.uuid)).status === 'CAPTURED' ? true : undefined), 'paid');
    await fake.idle();
    const paid = await detail(c.uuid);
    assert.equal(paid.amount_captured, 120.5);
    assert.equal(paid.masked_pan, 'XXXXXXXXXXXX4242');
    const payments = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM money_ledger WHERE payment_request_id = $1 AND kind = 'payment'",
      [c.uuid],
    );
    assert.equal(payments.rows[0]?.n, 1, 'one payment in the ledger, however it was learnt');

    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/refund/`, payload: { amount: 40 } });
    assert.equal(r.statusCode, 200, r.body);
    const refunded = await detail(c.uuid);
    assert.equal(refunded.status, 'CAPTURED');
    assert.equal(refunded.amount_refunded, 40);
    const [pi] = objects('payment_intent', c.uuid);
    assert.equal(pi?.amount_received, 12050);
    const refunds = objects('refund', c.uuid);
    assert.deepEqual(
      refunds.map((x) => [x.amount, x.status, x.payment_intent]),
      [[4000, 'succeeded', pi?.id]],
    );
    const refundCall = fake.calls.find((x) => x.route === 'POST /v1/refunds');
    const ledger = await t.db.query<{ idempotency_key: string }>(
      "SELECT idempotency_key FROM money_ledger WHERE payment_request_id = $1 AND kind = 'refund'",
      [c.uuid],
    );
    assert.equal(
      refundCall?.idempotencyKey,
      ledger.rows[0]?.idempotency_key,
      "Stripe's Idempotency-Key is the operation's key",
    );
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined, 'the books agree');
  });

  test('a forged webhook is refused (401) and changes nothing; the genuine one is a duplicate', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 30 });
    fake.holdWebhooks(true);
    try {
      const { done } = await guestOnCheckout(c.payment_link);
      assert.equal(done.status, 303);
      const completed = fake.takeHeld().find((d) => d.event.type === 'checkout.session.completed');
      assert.ok(completed);
      const post = (headers: Record<string, string>, body = completed.body) =>
        fetch(`${t.baseUrl}/ipn/stripe/`, { method: 'POST', headers, body });
      const forged = await post({
        ...completed.headers,
        'stripe-signature':
          completed.headers['stripe-signature']?.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`) ?? '',
      });
      assert.equal(forged.status, 401);
      const tampered = await post(completed.headers, completed.body.replace('"complete"', '"open"'));
      assert.equal(tampered.status, 401);
      const old = await post({
        ...completed.headers,
        'stripe-signature': `t=1000000000,${completed.headers['stripe-signature']?.split(',')[1]}`,
      });
      assert.equal(old.status, 401);
      assert.equal((await detail(c.uuid)).status, 'PENDING', 'nothing changed');
      const genuine = await post(completed.headers);
      assert.equal(genuine.status, 200);
      assert.equal((await detail(c.uuid)).status, 'CAPTURED');
      const again = await post(completed.headers);
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as { status: string }).status, 'duplicate');
    } finally {
      fake.holdWebhooks(false);
    }
  });

  test('an IMPRINT saved on Checkout, held by the daily job (manual capture, off session, for the amount), partly captured', async () => {
    const c = await registered(150);
    const [setup] = objects('setup_intent', c.uuid);
    assert.equal(setup?.status, 'succeeded');
    const job = await dailyJob();
    assert.equal(job.held, 1, JSON.stringify(job));
    const held = await detail(c.uuid);
    assert.equal(held.status, 'AUTHORISED_TO_VALIDATE');
    const call = fake.calls.find(
      (x) =>
        x.route === 'POST /v1/payment_intents' &&
        (x.params.metadata as Record<string, string>)?.payreq_request === c.uuid,
    );
    assert.ok(call);
    assert.equal(call.params.capture_method, 'manual');
    assert.equal(call.params.off_session, 'true');
    assert.equal(call.params.confirm, 'true');
    assert.equal(call.params.amount, '15000');
    assert.equal(call.params.customer, setup?.customer);
    assert.equal(call.params.payment_method, setup?.payment_method);
    const key = await t.db.query<{ idempotency_key: string }>(
      "SELECT idempotency_key FROM money_ledger WHERE payment_request_id = $1 AND kind = 'hold'",
      [c.uuid],
    );
    assert.equal(call.idempotencyKey, key.rows[0]?.idempotency_key);
    assert.equal((call.params.metadata as Record<string, string>).payreq_operation, call.idempotencyKey);
    // Its end is the charge's capture_before (Visa: 4 days 18 hours), shorter than the hotel's 6 days.
    const [pi] = objects('payment_intent', c.uuid);
    const charge = fake.account.objects.get(pi?.latest_charge as string) as StripeObject;
    const captureBefore = (charge.payment_method_details as { card: { capture_before: number } }).card.capture_before;
    assert.equal(Date.parse(String(held.hold_expires_at)), captureBefore * 1000);
    const r = await t.call({
      method: 'POST',
      url: `/api/payment-requests/${c.uuid}/capture/`,
      payload: { amount: 60 },
    });
    assert.equal(r.statusCode, 200, r.body);
    const d = await detail(c.uuid);
    assert.equal(d.status, 'CAPTURED');
    assert.equal(d.amount_captured, 60);
    assert.equal((fake.account.objects.get(pi?.id as string) as StripeObject).amount_received, 6000);
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined);
  });

  test('a hold whose answer is lost: in doubt, settled by reconcile_claims from the one PaymentIntent at Stripe', async () => {
    const c = await registered(95);
    fake.failNext('POST /v1/payment_intents', 'lose');
    const job = await dailyJob();
    fake.clearFaults();
    assert.equal(job.in_doubt, 1, JSON.stringify(job));
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED', 'not guessed either way');
    await SCHEDULED_JOBS.reconcile_claims!(t.app.payreq, new Date(), 'Europe/Paris');
    const d = await detail(c.uuid);
    assert.equal(d.status, 'AUTHORISED_TO_VALIDATE');
    const intents = objects('payment_intent', c.uuid);
    assert.equal(intents.length, 1, 'one PaymentIntent at Stripe: the SDK’s retry carried the same key');
    assert.equal(d.provider_transaction_id ?? intents[0]?.id, intents[0]?.id);
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined);
  });

  test('4000 0000 0000 0341: saved, then the hold is declined: a failed guarantee', async () => {
    const c = await registered(110, STRIPE_CARDS.attachThenDecline);
    await dailyJob();
    const d = await detail(c.uuid);
    assert.equal(d.status, 'ERROR');
    assert.equal(d.guarantee_failures, 1);
    assert.ok(d.guarantee_failed_at);
    assert.equal(d.hold_decline_code, 'generic_decline');
    assert.equal(d.hold_decline_reason, 'do_not_honour');
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined);
  });

  test('4000 0027 6000 3184: off session, the bank asks for authentication: a failed guarantee whose reason says so', async () => {
    const c = await createRequest(t, {
      request_type: 'IMPRINT',
      amount: 70,
      language: 'en',
      guest_email: 'authenticate@example.test',
      reservation_data: { checkin: CHECKIN },
    });
    const { done } = await guestOnCheckout(c.payment_link, STRIPE_CARDS.alwaysAuthenticate);
    assert.equal(done.status, 303);
    await eventually(async () => ((await detail(c.uuid)).status === 'AUTHORISED' ? true : undefined), 'saved');
    await dailyJob();
    const d = await detail(c.uuid);
    assert.equal(d.status, 'ERROR');
    assert.equal(d.hold_decline_reason, 'authentication_required');
    // The guest is asked to come back through the link and confirm the card.
    await sendDueEmails(t.app.payreq);
    const mail = await eventually(
      async () =>
        smtp.messages.find(
          (m) => m.envelopeTo.includes('authenticate@example.test') && /could not guarantee/.test(m.subject),
        ),
      'the guest e-mail',
    );
    assert.match(
      mail.text,
      /Your bank asks you to confirm this card yourself: please come back through the same secure link/,
    );
    assert.ok(mail.text.includes(`/payment/${c.uuid}/`), 'the same link');
  });

  test('a release: the hold cancelled at Stripe, CANCELLED, nothing taken', async () => {
    const c = await registered(90);
    await dailyJob();
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
    const r = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/release/` });
    assert.equal(r.statusCode, 200, r.body);
    const d = await detail(c.uuid);
    assert.equal(d.status, 'CANCELLED');
    assert.equal(d.amount_captured, 0);
    const [pi] = objects('payment_intent', c.uuid);
    assert.equal(pi?.status, 'canceled');
    assert.equal(await t.app.payreq.reconciler.checkRequest(c.uuid), undefined);
  });
});
