import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dayPlan } from '../../src/day-plan/index.ts';
import { SCHEDULED_JOBS } from '../../src/jobs/index.ts';
import { signatureHeader } from '../../src/providers/stripe/index.ts';
import type { StripeObject } from '../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { eventually } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';

const D = '2026-12-10';
const CHECKIN = '2026-12-12';

/**
 * `POST /ipn/stripe/`: each event checked with the webhook secret of the account it belongs to
 * (found from payreq's metadata on the object, or the ledger row naming its PaymentIntent),
 * before anything in it is believed; what Stripe itself reports (a hold it let lapse, a
 * dispute) opens an incident the Books and Today pages show.
 */
describe(`POST /ipn/stripe/ (${ENGINE})`, { timeout: 300_000 }, () => {
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

  const detail = async (id: string) => {
    const r = await t.call({ method: 'GET', url: `/api/payment-requests/${id}/` });
    return r.json() as Record<string, unknown> & { status: string };
  };
  const post = (body: string, signature: string) =>
    fetch(`${t.baseUrl}/ipn/stripe/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });
  const event = (type: string, object: Record<string, unknown>) =>
    JSON.stringify({ id: `evt_test_${Math.random().toString(36).slice(2)}`, object: 'event', type, data: { object } });

  async function held(amount: number) {
    const c = await createRequest(t, { request_type: 'IMPRINT', amount, reservation_data: { checkin: CHECKIN } });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    assert.equal((await submitCheckout(visit, STRIPE_CARDS.visa)).status, 303);
    await eventually(async () => ((await detail(c.uuid)).status === 'AUTHORISED' ? true : undefined), 'registered');
    await SCHEDULED_JOBS.create_deferred_payments!(t.app.payreq, new Date(`${D}T10:00:00Z`), 'Europe/Paris');
    assert.equal((await detail(c.uuid)).status, 'AUTHORISED_TO_VALIDATE');
    return c;
  }

  test('a hold Stripe let lapse (charge.expired): EXPIRED, and an incident on the Books and Today pages', async () => {
    const c = await held(80);
    const pi = [...fake.account.objects.values()].find(
      (o) => o.object === 'payment_intent' && (o.metadata as Record<string, string>).payreq_request === c.uuid,
    ) as StripeObject;
    const charge = fake.account.objects.get(pi.latest_charge as string) as StripeObject;
    const ends = (charge.payment_method_details as { card: { capture_before: number } }).card.capture_before;
    fake.clock.set(new Date(ends * 1000 + 1000));
    try {
      fake.expireHolds();
      await fake.idle();
    } finally {
      fake.clock.set(new Date());
    }
    const d = await detail(c.uuid);
    assert.equal(d.status, 'EXPIRED');
    const last = (await t.repos.paymentRequests.history(c.uuid)).at(-1);
    assert.equal((last?.detail as { reason?: string } | undefined)?.reason, 'hold_lapsed_at_provider');
    const incidents = await t.repos.books.openIncidents(t.tenant.tenantId, 10);
    assert.deepEqual(incidents.find((i) => i.payment_request_id === c.uuid)?.problems, ['hold_lapsed']);
    const plan = await dayPlan(t.repos, { id: t.tenant.tenantId, timezone: 'Europe/Paris' }, new Date(), {
      inDoubtGraceSeconds: 120,
    });
    assert.ok(
      plan.incidents.some((i) => i.payment_request_id === c.uuid),
      'the Today page lists it',
    );
  });

  test('a dispute (charge.dispute.created) carries no metadata of payreq’s: found by its PaymentIntent, recorded as an incident', async () => {
    const c = await held(90);
    const cap = await t.call({ method: 'POST', url: `/api/payment-requests/${c.uuid}/capture/` });
    assert.equal(cap.statusCode, 200, cap.body);
    const pi = [...fake.account.objects.values()].find(
      (o) => o.object === 'payment_intent' && (o.metadata as Record<string, string>).payreq_request === c.uuid,
    ) as StripeObject;
    fake.ops.dispute(pi.id);
    await fake.idle();
    const record = fake.deliveries.find((d) => d.delivery.event.type === 'charge.dispute.created');
    assert.deepEqual(record?.attempts, [200]);
    const incident = (await t.repos.books.openIncidents(t.tenant.tenantId, 10)).find(
      (i) => i.payment_request_id === c.uuid,
    );
    assert.deepEqual(incident?.problems, ['disputed']);
    assert.equal((await detail(c.uuid)).status, 'CAPTURED', 'the status does not move');
    // The same event again changes nothing.
    const again = await fetch(record?.delivery.url ?? '', {
      method: 'POST',
      headers: record?.delivery.headers,
      body: record?.delivery.body,
    });
    assert.equal(((await again.json()) as { status: string }).status, 'duplicate');
  });

  test('events about nothing of payreq’s, or of a type payreq does not read, are acknowledged (200) and change nothing', async () => {
    // Another sale on the hotel's Stripe account: made and paid outside payreq.
    const customer = fake.ops.createCustomer({ email: 'walk-in@example.test' });
    const s = fake.ops.createSession({
      mode: 'payment',
      customer: customer.id,
      currency: 'eur',
      amount: 5000,
      clientReferenceId: null,
      metadata: {},
      intentMetadata: {},
      captureMethod: null,
      successUrl: 'https://shop.example/ok',
      cancelUrl: null,
      locale: null,
      baseUrl: fake.apiUrl,
    });
    fake.ops.submitSession(s.id, { number: STRIPE_CARDS.visa, expMonth: 12, expYear: 2030 });
    await fake.idle();
    const others = fake.deliveries.filter(
      (d) => (d.delivery.event.data as { object: StripeObject }).object.id === s.id,
    );
    assert.ok(others.length > 0);
    for (const d of others) assert.deepEqual(d.attempts, [200], `${d.delivery.event.type} acknowledged`);
  });

  test('a signature nobody’s secret makes is refused (401); an unsigned one too; none is recorded', async () => {
    const body = event('checkout.session.completed', {
      id: 'cs_test_x',
      object: 'checkout.session',
      client_reference_id: null,
    });
    const forged = await post(
      body,
      signatureHeader('whsec_not_any_hotels_secret', Math.floor(Date.now() / 1000), body),
    );
    assert.equal(forged.status, 401);
    assert.equal((await post(body, '')).status, 401);
    assert.equal((await post('not json', 't=1,v1=00')).status, 401);
    const recorded = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM provider_events WHERE event_id LIKE 'evt_test_%'",
    );
    assert.equal(recorded.rows[0]?.n, 0);
  });

  test('Stripe cannot be asked about a completed session: 502, nothing recorded, and the event sent again is applied', async () => {
    const c = await createRequest(t, { request_type: 'DEPOSIT', amount: 45 });
    const visit = await openCheckout(t, c.payment_link);
    assert.ok(visit);
    fake.holdWebhooks(true);
    try {
      await submitCheckout(visit, STRIPE_CARDS.visa);
      const completed = fake.takeHeld().find((d) => d.event.type === 'checkout.session.completed');
      assert.ok(completed);
      fake.failNext('GET /v1/checkout/sessions/:id', 'technical');
      const refused = await fetch(completed.url, { method: 'POST', headers: completed.headers, body: completed.body });
      assert.equal(refused.status, 502);
      assert.equal((await detail(c.uuid)).status, 'PENDING');
      const again = await fetch(completed.url, { method: 'POST', headers: completed.headers, body: completed.body });
      assert.equal(again.status, 200);
      assert.equal((await detail(c.uuid)).status, 'CAPTURED');
    } finally {
      fake.clearFaults();
      fake.holdWebhooks(false);
    }
  });
});
