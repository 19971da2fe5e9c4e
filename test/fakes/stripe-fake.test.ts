import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { InvalidNotificationError } from '../../src/providers/index.ts';
import { type StripeClient, stripeClient } from '../../src/providers/stripe/client.ts';
import { verifySignature } from '../../src/providers/stripe/index.ts';
import type { StripeObject } from './stripe/fake-store.ts';
import { FAKE_KEYS, type StripeFake, startStripeFake } from './stripe/stripe-fake.ts';
import { STRIPE_CARDS } from './stripe/test-cards.ts';

/**
 * The Stripe fake speaks Stripe's wire as the official SDK and a plain HTTP client see it: the
 * tests the fake must pass before payreq's are worth anything.
 */
describe('the Stripe fake', { timeout: 120_000 }, () => {
  let fake: StripeFake;
  let stripe: StripeClient;
  /** A receiver of webhooks: answers 500 to the first `failFirst` posts, then 200. */
  let receiver: Server;
  let received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  let failFirst = 0;
  let receiverUrl = '';

  before(async () => {
    fake = await startStripeFake();
    stripe = await stripeClient({ apiUrl: fake.apiUrl, secretKey: FAKE_KEYS.test, timeoutMs: 2000 });
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(failFirst-- > 0 ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    await fake?.close();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  const raw = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${fake.apiUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${init.key ?? FAKE_KEYS.test}`,
        'content-type': 'application/x-www-form-urlencoded',
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  /** A customer with a card saved on Checkout (setup mode), as payreq makes them. */
  async function savedCard(card: string) {
    const customer = await stripe.customers.create({ email: 'guest@example.test' });
    const session = await stripe.checkout.sessions.create({
      mode: 'setup',
      customer: customer.id,
      currency: 'eur',
      success_url: 'https://hotel.example/result/?session_id={CHECKOUT_SESSION_ID}',
      setup_intent_data: { metadata: { payreq_request: 'r' } },
    });
    const page = await fetch(session.url as string, {
      method: 'POST',
      body: new URLSearchParams({ card_number: card, exp_month: '12', exp_year: '30', cvc: '123' }),
      redirect: 'manual',
    });
    return { customer, session, page };
  }

  const hold = (customer: string, paymentMethod: string, key: string, amount = 15000) =>
    stripe.paymentIntents.create(
      {
        amount,
        currency: 'eur',
        customer,
        payment_method: paymentMethod,
        capture_method: 'manual',
        confirm: true,
        off_session: true,
        metadata: { payreq_operation: key },
        expand: ['latest_charge'],
      },
      { idempotencyKey: key },
    );

  test('a wrong key is 401 with an error object; an unknown route 404; a malformed parameter 400', async () => {
    const bad = await raw('/v1/customers', { key: 'sk_test_NotAKeyOfThisFake000' });
    assert.equal(bad.status, 401);
    const body = (await bad.json()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /^Invalid API Key provided: sk_test_\*{4}/);
    assert.doesNotMatch(body.error.message, /NotAKeyOfThisFake/, 'the key is never echoed whole');
    assert.equal((await raw('/v1/nothing')).status, 404);
    const malformed = await raw('/v1/customers', { method: 'POST', body: 'metadata]x[=1' });
    assert.equal(malformed.status, 400);
  });

  test('bracket keys make nested objects and arrays, in bodies and queries; expand[] both ways', async () => {
    const r = await raw('/v1/customers', {
      method: 'POST',
      body: 'email=a%40b.test&metadata[payreq_request]=abc&metadata[payreq_reference]=DEP-1',
    });
    assert.equal(r.status, 200);
    const customer = (await r.json()) as StripeObject;
    assert.deepEqual(customer.metadata, { payreq_request: 'abc', payreq_reference: 'DEP-1' });
    const { customer: c, session } = await savedCard(STRIPE_CARDS.visa);
    const plain = (await (await raw(`/v1/setup_intents/${session.setup_intent}`)).json()) as StripeObject;
    assert.equal(typeof plain.payment_method, 'string');
    for (const q of ['expand[]=payment_method', 'expand[0]=payment_method']) {
      const expanded = (await (await raw(`/v1/setup_intents/${session.setup_intent}?${q}`)).json()) as StripeObject;
      assert.equal((expanded.payment_method as StripeObject).object, 'payment_method');
      assert.equal((expanded.payment_method as StripeObject).customer, c.id);
    }
  });

  test('Idempotency-Key: the same key and parameters replay the first answer (Idempotent-Replayed), others are an idempotency_error', async () => {
    const post = (body: string) =>
      raw('/v1/customers', { method: 'POST', body, headers: { 'idempotency-key': 'same-key-1' } });
    const first = await post('email=one%40example.test');
    const again = await post('email=one%40example.test');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await again.json()) as StripeObject).id, ((await first.json()) as StripeObject).id);
    const other = await post('email=two%40example.test');
    assert.equal(other.status, 400);
    assert.equal(((await other.json()) as { error: { type: string } }).error.type, 'idempotency_error');
    // A declined hold is an answer too: replayed as it was.
    const { customer, session } = await savedCard(STRIPE_CARDS.attachThenDecline);
    const si = await stripe.setupIntents.retrieve(session.setup_intent as string);
    const declined = async () => {
      try {
        await hold(customer.id, si.payment_method as string, 'hold-declined-1');
        return undefined;
      } catch (err) {
        return err as { type: string; decline_code: string; payment_intent: { id: string } };
      }
    };
    const [d1, d2] = [await declined(), await declined()];
    assert.equal(d1?.type, 'StripeCardError');
    assert.equal(d1?.decline_code, 'generic_decline');
    assert.equal(d2?.payment_intent.id, d1?.payment_intent.id, 'one PaymentIntent, the answer replayed');
  });

  test('lists page newest first: limit, has_more, starting_after and ending_before', async () => {
    const other = fake.addAccount(FAKE_KEYS.other);
    const s2 = await stripeClient({ apiUrl: fake.apiUrl, secretKey: FAKE_KEYS.other, timeoutMs: 2000 });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await s2.customers.create({ email: `c${i}@example.test` })).id);
    const page1 = await s2.customers.list({ limit: 2 });
    assert.deepEqual(
      page1.data.map((c) => c.id),
      [made[4], made[3]],
    );
    assert.equal(page1.has_more, true);
    const page2 = await s2.customers.list({ limit: 2, starting_after: made[3] as string });
    assert.deepEqual(
      page2.data.map((c) => c.id),
      [made[2], made[1]],
    );
    const back = await s2.customers.list({ limit: 2, ending_before: made[2] as string });
    assert.deepEqual(
      back.data.map((c) => c.id),
      [made[4], made[3]],
    );
    const all = await s2.customers.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    assert.equal(all.length, 5, 'the SDK pages through');
    assert.equal(other.account.objects.size, 5, 'each account its own objects');
  });

  test('Checkout: the hosted page saves a card (setup) or pays (payment); a decline keeps the session open', async () => {
    const { session, page } = await savedCard(STRIPE_CARDS.visa);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), `https://hotel.example/result/?session_id=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    assert.equal(done.status, 'complete');
    const customer = await stripe.customers.create({});
    const pay = await stripe.checkout.sessions.create({
      mode: 'payment',
      customer: customer.id,
      client_reference_id: 'order-1',
      success_url: 'https://hotel.example/ok?session_id={CHECKOUT_SESSION_ID}',
      line_items: [
        { quantity: 1, price_data: { currency: 'eur', unit_amount: 12050, product_data: { name: 'DEP-1' } } },
      ],
      payment_intent_data: { metadata: { payreq_request: 'order-1' } },
    });
    const shown = await (await fetch(pay.url as string)).text();
    assert.match(shown, /Pay 120\.50 EUR/);
    const submit = (card: string) =>
      fetch(pay.url as string, {
        method: 'POST',
        body: new URLSearchParams({ card_number: card, exp_month: '1', exp_year: '2031', cvc: '1' }),
        redirect: 'manual',
      });
    const declined = await submit(STRIPE_CARDS.insufficientFunds);
    assert.equal(declined.status, 402);
    assert.match(await declined.text(), /insufficient funds/);
    assert.equal((await stripe.checkout.sessions.retrieve(pay.id)).status, 'open');
    const paid = await submit(STRIPE_CARDS.mastercard);
    assert.equal(paid.status, 303);
    const after = await stripe.checkout.sessions.retrieve(pay.id);
    assert.equal(after.payment_status, 'paid');
    const pi = await stripe.paymentIntents.retrieve(after.payment_intent as string, { expand: ['latest_charge'] });
    assert.equal(pi.status, 'succeeded');
    assert.equal(pi.amount_received, 12050);
    assert.equal(pi.metadata.payreq_request, 'order-1');
    assert.equal(pi.last_payment_error, null);
    const charge = pi.latest_charge as { payment_method_details: { card: { brand: string; last4: string } } };
    assert.deepEqual(
      [charge.payment_method_details.card.brand, charge.payment_method_details.card.last4],
      ['mastercard', '4444'],
    );
  });

  test('the documented test cards, off session: 0341 and 9979 decline, 3155 holds, 3184 asks for authentication', async () => {
    const cases: [string, string | null][] = [
      [STRIPE_CARDS.visa, null],
      [STRIPE_CARDS.attachThenDecline, 'generic_decline'],
      [STRIPE_CARDS.authenticateAtSetup, null],
      [STRIPE_CARDS.alwaysAuthenticate, 'authentication_required'],
    ];
    for (const [card, decline] of cases) {
      const { customer, session } = await savedCard(card);
      const si = await stripe.setupIntents.retrieve(session.setup_intent as string);
      assert.equal(si.status, 'succeeded', `${card} is saved`);
      try {
        const pi = await hold(customer.id, si.payment_method as string, `hold-card-${card}`);
        assert.equal(decline, null, `${card} should decline`);
        assert.equal(pi.status, 'requires_capture');
      } catch (err) {
        const e = err as { type: string; decline_code: string; payment_intent: { status: string } };
        assert.equal(e.type, 'StripeCardError', `${card}: ${String(err)}`);
        assert.equal(e.decline_code, decline);
        assert.equal(e.payment_intent.status, 'requires_payment_method');
      }
    }
    for (const [card, why] of [
      [STRIPE_CARDS.declined, /declined/],
      [STRIPE_CARDS.stolen, /declined/],
    ] as const) {
      const { page } = await savedCard(card);
      assert.equal(page.status, 402);
      assert.match(await page.text(), why);
    }
  });

  test('a hold ends at capture_before; past it Stripe cancels it and sends charge.expired', async () => {
    const { customer, session } = await savedCard(STRIPE_CARDS.visa);
    const si = await stripe.setupIntents.retrieve(session.setup_intent as string);
    const pi = await hold(customer.id, si.payment_method as string, 'hold-expiring');
    const charge = pi.latest_charge as { payment_method_details: { card: { capture_before: number } } };
    const ends = charge.payment_method_details.card.capture_before * 1000;
    const placed = pi.created * 1000;
    assert.equal(ends - placed, (4 * 24 + 18) * 3600_000, "Visa's window for a merchant-initiated hold");
    fake.clock.set(new Date(ends + 1000));
    try {
      const after = await stripe.paymentIntents.retrieve(pi.id);
      assert.equal(after.status, 'canceled');
      assert.equal(after.cancellation_reason, 'automatic');
      assert.ok(
        fake.account.events.some(
          (e) => e.type === 'charge.expired' && (e.data as { object: StripeObject }).object.payment_intent === pi.id,
        ),
      );
    } finally {
      fake.clock.set(new Date());
    }
  });

  test('capture once (part of the hold), cancel, refunds: amounts and states as Stripe keeps them', async () => {
    const { customer, session } = await savedCard(STRIPE_CARDS.visa);
    const si = await stripe.setupIntents.retrieve(session.setup_intent as string);
    const pi = await hold(customer.id, si.payment_method as string, 'hold-capture');
    const captured = await stripe.paymentIntents.capture(
      pi.id,
      { amount_to_capture: 6000 },
      { idempotencyKey: 'cap-1' },
    );
    assert.deepEqual([captured.status, captured.amount_received], ['succeeded', 6000]);
    await assert.rejects(
      stripe.paymentIntents.capture(pi.id, { amount_to_capture: 1000 }, { idempotencyKey: 'cap-2' }),
      (err: { code?: string }) => err.code === 'payment_intent_unexpected_state',
    );
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 2500 }, { idempotencyKey: 're-1' });
    assert.equal(refund.status, 'succeeded');
    await assert.rejects(
      stripe.refunds.create({ payment_intent: pi.id, amount: 5000 }, { idempotencyKey: 're-2' }),
      (err: { type?: string }) => err.type === 'StripeInvalidRequestError',
    );
    const refunds = await stripe.refunds.list({ payment_intent: pi.id });
    assert.deepEqual(
      refunds.data.map((r) => r.amount),
      [2500],
    );
    const other = await hold(customer.id, si.payment_method as string, 'hold-cancel');
    const cancelled = await stripe.paymentIntents.cancel(other.id, {}, { idempotencyKey: 'cancel-1' });
    assert.equal(cancelled.status, 'canceled');
    const listed = await stripe.paymentIntents.list({ customer: customer.id, expand: ['data.latest_charge'] });
    assert.deepEqual(
      listed.data.map((p) => p.status),
      ['canceled', 'succeeded'],
    );
  });

  test('webhooks: an endpoint made through the API gets its secret once; events are signed as Stripe signs them and sent until answered', async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: receiverUrl, enabled_events: ['customer.created'] });
    assert.match(endpoint.secret ?? '', /^whsec_/);
    const listed = await stripe.webhookEndpoints.list();
    assert.equal(
      listed.data.find((e) => e.id === endpoint.id)?.secret,
      undefined,
      'the secret is shown at creation only',
    );
    received = [];
    failFirst = 1;
    const customer = await stripe.customers.create({ email: 'hooked@example.test' });
    await fake.idle();
    assert.equal(received.length, 2, 'retried after a 500');
    const [, last] = received;
    assert.ok(last);
    verifySignature(last.body, last.headers['stripe-signature'], endpoint.secret as string);
    assert.throws(
      () => verifySignature(last.body, last.headers['stripe-signature'], 'whsec_another_secret_000'),
      InvalidNotificationError,
    );
    const event = JSON.parse(last.body) as { type: string; data: { object: { id: string } } };
    assert.equal(event.type, 'customer.created');
    assert.equal(event.data.object.id, customer.id);
    await stripe.webhookEndpoints.del(endpoint.id);
  });

  test('payouts and their balance transactions: paged, filtered by arrival date, sources expanded', async () => {
    const s3 = fake.addAccount('sk_test_51PayoutAccountFake0000000');
    const client = await stripeClient({
      apiUrl: fake.apiUrl,
      secretKey: 'sk_test_51PayoutAccountFake0000000',
      timeoutMs: 2000,
    });
    const customer = await client.customers.create({});
    const session = await client.checkout.sessions.create({
      mode: 'payment',
      customer: customer.id,
      success_url: 'https://hotel.example/ok',
      line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 10000, product_data: { name: 'x' } } }],
    });
    await fetch(session.url as string, {
      method: 'POST',
      body: new URLSearchParams({ card_number: STRIPE_CARDS.visa, exp_month: '1', exp_year: '2031', cvc: '1' }),
      redirect: 'manual',
    });
    const paid = await client.checkout.sessions.retrieve(session.id);
    await client.refunds.create({ payment_intent: paid.payment_intent as string, amount: 3000 });
    const arrival = new Date('2026-12-14T00:00:00Z');
    const payout = s3.ops.payout(arrival);
    assert.ok(payout);
    const payouts = await client.payouts.list({
      status: 'paid',
      arrival_date: { gte: Math.floor(arrival.getTime() / 1000) },
    });
    assert.deepEqual(
      payouts.data.map((p) => p.id),
      [payout.id],
    );
    assert.equal(
      (await client.payouts.list({ arrival_date: { gt: Math.floor(arrival.getTime() / 1000) } })).data.length,
      0,
    );
    const lines = await client.balanceTransactions
      .list({ payout: payout.id, limit: 2, expand: ['data.source'] })
      .autoPagingToArray({ limit: 100 });
    assert.deepEqual(lines.map((l) => l.type).sort(), ['charge', 'payout', 'refund']);
    const charge = lines.find((l) => l.type === 'charge');
    assert.equal((charge?.source as { object?: string } | null)?.object, 'charge', 'the source expanded');
    assert.equal(charge?.fee, 175, '1.5 % + 0.25 of 100.00 (INVENTED price)');
    const own = lines.find((l) => l.type === 'payout');
    assert.equal(own?.amount, -(payout.amount as number));
    assert.equal(
      lines.filter((l) => l.type !== 'payout').reduce((s, l) => s + l.net, 0),
      payout.amount,
      'the payout is the net of its lines',
    );
  });

  test('faults: a lost answer stays lost through the SDK’s retry (same key, one object); 429 and 500 do nothing; a status shown in transit', async () => {
    const { customer, session } = await savedCard(STRIPE_CARDS.visa);
    const si = await stripe.setupIntents.retrieve(session.setup_intent as string);
    fake.failNext('POST /v1/payment_intents', 'lose');
    await assert.rejects(
      hold(customer.id, si.payment_method as string, 'hold-lost'),
      (err: { type?: string }) => err.type === 'StripeConnectionError',
    );
    const tries = fake.calls.filter((c) => c.idempotencyKey === 'hold-lost');
    assert.equal(tries.length, 2, 'the SDK tried again');
    assert.equal(tries[1]?.replayed, true, 'with the same key: replayed, not made twice');
    fake.clearFaults();
    const made = (await stripe.paymentIntents.list({ customer: customer.id })).data;
    assert.equal(made.length, 1, 'one PaymentIntent');
    fake.failNext('POST /v1/refunds', 'technical');
    await assert.rejects(
      stripe.refunds.create({ payment_intent: made[0]?.id as string, amount: 100 }, { idempotencyKey: 'r-429' }),
      (err: { type?: string }) => err.type === 'StripeRateLimitError',
    );
    fake.failNext('POST /v1/payment_intents/:id/cancel', 'crash');
    await assert.rejects(
      stripe.paymentIntents.cancel(made[0]?.id as string, {}, { idempotencyKey: 'c-500' }),
      (err: { type?: string }) => err.type === 'StripeAPIError',
    );
    fake.clearFaults();
    assert.equal(
      (await stripe.paymentIntents.retrieve(made[0]?.id as string)).status,
      'requires_capture',
      'nothing done',
    );
    fake.failNext('POST /v1/payment_intents/:id/cancel', { status: 'weird_status', stored: true });
    const shown = await stripe.paymentIntents.cancel(made[0]?.id as string, {}, { idempotencyKey: 'c-odd' });
    assert.equal(shown.status, 'weird_status');
    assert.equal((await stripe.paymentIntents.retrieve(made[0]?.id as string)).status, 'weird_status');
    fake.settleShown();
    assert.equal((await stripe.paymentIntents.retrieve(made[0]?.id as string)).status, 'canceled');
  });
});
