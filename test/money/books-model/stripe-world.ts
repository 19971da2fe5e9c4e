import assert from 'node:assert/strict';
import type { StripeObject } from '../../fakes/stripe/fake-store.ts';
import { useStripeAccount } from '../../fakes/stripe/give-account.ts';
import { backOnResultPage, type CheckoutVisit, openCheckout, submitCheckout } from '../../fakes/stripe/guest-pays.ts';
import { type Fault as StripeFault, startStripeFake } from '../../fakes/stripe/stripe-fake.ts';
import { LATER_DECLINES, STRIPE_CARDS } from '../../fakes/stripe/test-cards.ts';
import { startListeningApp } from '../../helpers/listening-app.ts';
import type { TenantWithKey } from '../../helpers/test-app.ts';
import type { Card, Fault, MoneyCall, ProviderWorld } from './world.ts';

const CARDS: Record<Card, string> = {
  good: STRIPE_CARDS.visa,
  refused: STRIPE_CARDS.declined,
  error: STRIPE_CARDS.processingError,
  blocked: STRIPE_CARDS.attachThenDecline,
};

/** The Stripe call whose answer a model fault meets: the one that moves the money. */
const ROUTE: Record<MoneyCall, string> = {
  capture: 'POST /v1/payment_intents/:id/capture',
  release: 'POST /v1/payment_intents/:id/cancel',
  refund: 'POST /v1/refunds',
  hold: 'POST /v1/payment_intents',
};

/** The runner's bound; each Stripe try is abandoned at 45 % of it, one retry after half a second. */
const TIMEOUT_MS = 1000;
/** A slow answer: past a try's own timeout, and past the bound with the retry's pause. */
const SLOW_MS = 1200;

/**
 * Stripe as the books model drives it, through the stateful fake: the payment page's button
 * to Checkout, the card typed on the fake's page, the guest back on the result page while the
 * webhook travels (whichever comes first applies the payment); faults on the routes that move
 * money, sticky through the SDK's retry; each hotel its own Stripe account, and a switch moves
 * it to another (its old account keeps its PaymentIntents). Its truth is the fake's objects,
 * read in every account.
 */
export async function stripeWorld(): Promise<ProviderWorld<CheckoutVisit>> {
  const fake = await startStripeFake();
  const t = await startListeningApp({
    // The grace covers twice the longest call (two tries of 450 ms and the hold's charge read), as configured.
    env: { PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS), IN_DOUBT_GRACE_SECONDS: '6' },
  });
  let hotels = 0;
  /** The fake accounts a hotel has used, newest last. */
  const keysOf = new Map<string, string[]>();

  async function newAccount(hotel: TenantWithKey): Promise<void> {
    hotels++;
    const key = `sk_test_51Hotel${String(hotels).padStart(4, '0')}FakeAccountKey00`;
    fake.addAccount(key);
    await useStripeAccount(t, hotel.tenantId, fake, { secretKey: key });
    keysOf.set(hotel.tenantId, [...(keysOf.get(hotel.tenantId) ?? []), key]);
  }

  const everyAccount = () =>
    [...keysOf.values()]
      .flat()
      .map((k) => fake.accountOf(k))
      .filter((x) => x !== undefined);

  const ofOrder = (orderId: string, kind: string): { o: StripeObject; ops: ReturnType<typeof fake.accountOf> }[] =>
    everyAccount().flatMap((entry) =>
      [...(entry?.account.objects.values() ?? [])]
        .filter(
          (o) => o.object === kind && (o.metadata as Record<string, string> | undefined)?.payreq_request === orderId,
        )
        .map((o) => ({ o, ops: entry })),
    );

  return {
    name: 'Stripe',
    t,
    async newHotel() {
      const hotel = await t.newTenant('Hôtel du Comptoir Rayé');
      await newAccount(hotel);
      return hotel;
    },
    async openForm(_hotel, request) {
      return openCheckout(t, request.payment_link);
    },
    async pay(visit, card) {
      const done = await submitCheckout(visit, CARDS[card]);
      assert.ok(done.status < 500, `Checkout: ${done.status} ${done.error}`);
      // Back on the result page while the webhook travels: whichever comes first applies it.
      if (done.location) {
        const page = await backOnResultPage(t, done.location);
        assert.ok(page.statusCode < 500, `the result page: ${page.statusCode}`);
      }
      await fake.idle();
      for (const d of fake.deliveries) {
        assert.ok(!d.attempts.some((s) => s >= 500), `webhook ${d.delivery.event.type}: ${d.attempts.join(', ')}`);
      }
    },
    async replay(nth) {
      const sent = fake.deliveries;
      const d = sent.length ? sent[nth % sent.length] : undefined;
      if (!d) return;
      const r = await fetch(d.delivery.url, { method: 'POST', headers: d.delivery.headers, body: d.delivery.body });
      await r.body?.cancel();
      // An event signed more than five minutes ago is refused (401): Stripe would sign it anew.
      assert.ok(r.status < 500, `webhook replayed: ${r.status}`);
    },
    arm(call, fault: Fault) {
      const route = ROUTE[call];
      const faults: Record<Fault, StripeFault> = {
        lost: 'lose',
        down: 'hang',
        late: 'slow',
        odd: { status: 'processing' },
        // Stripe then shows the object in a status no table knows, until it decides.
        unknown: { status: 'requires_review_v2', stored: true },
      };
      fake.failNext(route, faults[fault], { delayMs: SLOW_MS });
    },
    async disarm() {
      fake.clearFaults();
      await fake.idle();
    },
    quiet: () => fake.idle(),
    async view(orderId) {
      let net = 0;
      const openHolds: { id: string; amount: number }[] = [];
      for (const { o, ops } of ofOrder(orderId, 'payment_intent')) {
        if (o.status === 'succeeded') net += (o.amount_received as number) - (ops?.ops.refundedOf(o.id) ?? 0);
        if (o.status === 'requires_capture') openHolds.push({ id: o.id, amount: o.amount_capturable as number });
      }
      return { net, openHolds };
    },
    async landLateHold(orderId) {
      for (const { o, ops } of ofOrder(orderId, 'setup_intent')) {
        if (o.status !== 'succeeded' || !ops) continue;
        const pm = ops.account.objects.get(o.payment_method as string);
        if (!pm?.customer) continue;
        try {
          ops.ops.createPaymentIntent(
            {
              amount: 8000,
              currency: 'eur',
              customer: pm.customer as string,
              paymentMethod: pm.id,
              captureMethod: 'manual',
              confirm: true,
              offSession: true,
              metadata: { payreq_request: orderId, payreq_operation: `hold:late:${orderId}:${Date.now()}` },
            },
            null,
          );
        } catch {
          continue; // the card declines: no late hold lands
        }
        return true;
      }
      return false;
    },
    async cardGoesBad(orderId) {
      // The order's last saved card, in whichever account saved it.
      const saved = ofOrder(orderId, 'setup_intent').filter(({ o }) => o.status === 'succeeded' && o.payment_method);
      const last = saved.sort((a, b) => a.o.created - b.o.created).at(-1);
      if (!last?.ops) return false;
      last.ops.ops.goBad(last.o.payment_method as string, LATER_DECLINES.hard);
      return true;
    },
    decide: () => fake.settleShown(),
    async switchAccount(hotel) {
      await newAccount(hotel);
    },
    async close() {
      await t.close();
      fake.clearFaults();
      await fake.close();
    },
  };
}
