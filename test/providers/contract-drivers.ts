import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STRIPE_TRIES, stripeRequestTimeoutMs } from '../../src/provider-call-limits/index.ts';
import { type MoneyAnswer, type PaymentProvider, ProviderError } from '../../src/providers/index.ts';
import { TEST_CARDS } from '../../src/providers/sandbox/test-cards.ts';
import { DECLINE_CODES, LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { type Fault, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { useStripeAccount } from '../fakes/stripe/give-account.ts';
import { openCheckout, submitCheckout } from '../fakes/stripe/guest-pays.ts';
import { type StripeFake, type Fault as StripeFault, startStripeFake } from '../fakes/stripe/stripe-fake.ts';
import { LATER_DECLINES, STRIPE_CARDS } from '../fakes/stripe/test-cards.ts';
import { guestCall } from '../guest/guest-helpers.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { checkoutForm, submitCard } from '../helpers/sandbox-checkout.ts';

/**
 * What the provider contract suite needs of a provider, and nothing else: the guest's side (its
 * card form and the notification it sends), and a way to make its next money call fail as a
 * real one can. Everything else the suite does through payreq's HTTP API, its money runner,
 * its daily job and its reconcile, the same for every provider.
 */
export interface ContractDriver {
  readonly name: 'sandbox' | 'lyra' | 'stripe';
  /** The service, with the provider serving its default tenant. */
  readonly t: ListeningApp;
  /** Card numbers the provider's test bank accepts, refuses, or fails on (technical). */
  readonly cards: { accepted: string; refused: string; technical: string };
  /**
   * A card declined (or failing) on the provider's own page leaves the attempt open there: the
   * page asks the guest for another card and payreq is not told (Stripe Checkout). Otherwise the
   * attempt ends, REFUSED or ERROR, and the guest comes back through the link.
   */
  readonly declineKeepsAttemptOpen: boolean;
  /** The card as the provider shows it (Stripe gives the last four digits only). */
  readonly maskedPan: RegExp;
  /**
   * When the adapter itself gives up on a call that is never answered, where that comes before
   * the runner's bound (Stripe: the SDK's two tries and its pause); undefined: the bound.
   */
  readonly givesUpAfterMs?: number;
  /**
   * The guest, on the payment link (opened through payreq's guest page), types `card` on the
   * provider's form. Answers the provider's signed notification, held back: the test delivers it.
   */
  guestPays(id: string, paymentLink: string, card: string): Promise<Notification>;
  /** The same notification with a signature that is not the provider's. */
  forged(n: Notification): Notification;
  /** The bank refuses the card saved for this request from now on (a card gone bad after registration). */
  /**
   * The saved card goes bad: the bank refuses every later hold on it, for good (a stolen card)
   * or softly (insufficient funds: worth trying again).
   */
  cardGoesBad(id: string, how?: 'hard' | 'soft'): Promise<void>;
  /**
   * Where the provider's wire shows them: the network id each silent hold on the order named
   * (Lyra's initialIssuerTransactionIdentifier), oldest first. Undefined: a provider with none.
   */
  holdChains?(id: string): (string | null)[];
  /** The next `op` money call fails: the provider says it failed, or acts and never answers. */
  failNext(op: MoneyOp, fault: 'technical' | 'timeout'): void;
  close(): Promise<void>;
}

export type MoneyOp = 'hold' | 'capture' | 'release' | 'refund';

/** A provider notification as it travels: where it is posted, its headers and its body. */
export interface Notification {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The bound on every provider call: short for the timeout tests, long enough for a loaded machine. */
export const PROVIDER_TIMEOUT_MS = 3_000;

const env = { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS), TRUST_PROXY: 'true' };

/** Delivers a notification to the service over HTTP, as the provider would. */
export async function deliver(t: ListeningApp, n: Notification): Promise<{ status: number; outcome: unknown }> {
  const r = await fetch(`${t.baseUrl}${n.path}`, { method: 'POST', headers: n.headers, body: n.body });
  const body = (await r.json().catch(() => ({}))) as { status?: unknown };
  return { status: r.status, outcome: body.status };
}

/**
 * The built-in sandbox. Its card page charges and notifies at once; the form is asked for
 * with a notification URL of the test's own (the sandbox signs it into the form), so the
 * notification is held back like Lyra's. Its money calls are in-process: a fault is injected
 * around them, where Lyra's fake injects it on the wire.
 */
export async function sandboxDriver(): Promise<ContractDriver> {
  const faults = new Map<MoneyOp, 'technical' | 'timeout'>();
  const around = (op: MoneyOp, call: () => Promise<MoneyAnswer>): Promise<MoneyAnswer> => {
    const fault = faults.get(op);
    faults.delete(op);
    if (fault === 'technical') return Promise.reject(new ProviderError('technical', `contract: ${op} failed`));
    // Done at the provider, and the answer never comes: the service's own timeout decides.
    if (fault === 'timeout') return call().then(() => new Promise<never>(() => undefined));
    return call();
  };
  const wrap = (inner: PaymentProvider): PaymentProvider => ({
    ...inner,
    silentHold: (c) => around('hold', () => inner.silentHold(c)),
    capture: (c) => around('capture', () => inner.capture(c)),
    release: (c) => around('release', () => inner.release(c)),
    refund: (c) => around('refund', () => inner.refund(c)),
  });
  const t = await startListeningApp({ env, provider: wrap });

  const received: Notification[] = [];
  const recorder: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const headers: Record<string, string> = { 'content-type': String(req.headers['content-type']) };
      const signature = req.headers['x-sandbox-signature'];
      if (typeof signature === 'string') headers['x-sandbox-signature'] = signature;
      received.push({ path: '/ipn/sandbox/', headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const notifyUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/ipn/sandbox/`;

  return {
    name: 'sandbox',
    t,
    cards: { accepted: '4242424242424242', refused: '4000000000000002', technical: '4000000000000119' },
    declineKeepsAttemptOpen: false,
    maskedPan: /^\d{6}X+\d{4}$/,
    async guestPays(id, paymentLink, card) {
      assert.equal((await guestCall(t, paymentLink)).statusCode, 200, 'the payment page');
      const before = received.length;
      const posted = await submitCard(await checkoutForm(t, id, { notifyUrl }), { number: card });
      assert.equal(posted.status, 303, posted.body);
      const n = received[before];
      assert.ok(n, 'the sandbox notified');
      return n;
    },
    forged: (n) => ({ ...n, headers: { ...n.headers, 'x-sandbox-signature': `sha256=${'0'.repeat(64)}` } }),
    async cardGoesBad(id, how = 'hard') {
      const r = await t.db.query(
        `UPDATE sandbox_tokens SET card_number = $2
          WHERE token IN (SELECT token FROM sandbox_transactions WHERE order_id = $1 AND kind = 'verification')`,
        [id, how === 'hard' ? TEST_CARDS.stolenAfterRegistration : TEST_CARDS.softDeclineAfterRegistration],
      );
      assert.equal(r.rowCount, 1, 'the saved card');
    },
    failNext: (op, fault) => faults.set(op, fault),
    async close() {
      await t.close();
      await new Promise<void>((resolve) => recorder.close(() => resolve()));
    },
  };
}

/** The service call each money operation ends with at Lyra, where the fake injects a fault. */
const LYRA_SERVICE: Record<MoneyOp, string> = {
  hold: 'Charge/CreatePayment',
  capture: 'Transaction/Validate',
  release: 'Transaction/Cancel',
  refund: 'Transaction/CancelOrRefund',
};
const LYRA_FAULT: Record<'technical' | 'timeout', Fault> = { technical: 'technical', timeout: 'late' };

/**
 * The Lyra adapter on the wire-level fake: the default tenant has a Lyra account. The guest's
 * form is the one payreq's page embeds (its form token read from the page); the fake completes
 * it as Lyra's card form would and answers the notification it would post.
 */
export async function lyraDriver(): Promise<ContractDriver> {
  const fake: LyraFake = await startLyraFake();
  const t = await startListeningApp({ env });
  await giveLyraAccount(t, t.tenant.tenantId, fake);
  assert.equal((await t.app.payreq.providers.forTenant(t.tenant.tenantId)).name, 'lyra');

  return {
    name: 'lyra',
    t,
    cards: { accepted: LYRA_CARDS.accepted, refused: LYRA_CARDS.refused, technical: LYRA_CARDS.technicalError },
    declineKeepsAttemptOpen: false,
    maskedPan: /^\d{6}X+\d{4}$/,
    async guestPays(_id, paymentLink, card) {
      const page = await guestCall(t, paymentLink);
      assert.equal(page.statusCode, 200, 'the payment page');
      const token = /kr-form-token="([^"]+)"/.exec(page.body)?.[1];
      assert.ok(token, "Lyra's form token on the page");
      const { ipnBody } = fake.completeForm(token, card);
      return { path: '/ipn/lyra/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: ipnBody };
    },
    forged(n) {
      const fields = new URLSearchParams(n.body);
      fields.set('kr-hash', 'f'.repeat(64));
      return { ...n, body: fields.toString() };
    },
    async cardGoesBad(id, how = 'hard') {
      const token = fake.store.order(id).find((x) => x.paymentMethodToken)?.paymentMethodToken;
      assert.ok(token, 'the saved card');
      fake.store.refuseCardFromNowOn(
        token,
        how === 'hard' ? DECLINE_CODES.stolenCard : DECLINE_CODES.insufficientFunds,
      );
    },
    holdChains: (id) =>
      fake.calls
        .filter((c) => c.service === 'Charge/CreatePayment' && c.body.orderId === id && c.body.paymentMethodToken)
        .map((c) => {
          const options = c.body.transactionOptions as { cardOptions?: Record<string, unknown> } | undefined;
          const chained = options?.cardOptions?.initialIssuerTransactionIdentifier;
          return typeof chained === 'string' ? chained : null;
        }),
    failNext: (op, fault) => fake.failNext(LYRA_SERVICE[op], LYRA_FAULT[fault]),
    async close() {
      await t.close();
      await fake.close();
    },
  };
}

/** The Stripe call each money operation makes, where the fake injects a fault. */
const STRIPE_ROUTE: Record<MoneyOp, string> = {
  hold: 'POST /v1/payment_intents',
  capture: 'POST /v1/payment_intents/:id/capture',
  release: 'POST /v1/payment_intents/:id/cancel',
  refund: 'POST /v1/refunds',
};
const STRIPE_FAULT: Record<'technical' | 'timeout', StripeFault> = { technical: 'technical', timeout: 'late' };

/**
 * The Stripe adapter on the stateful fake: the default tenant's account set up as `payreq
 * tenant set-provider` does (its webhook endpoint created at the fake). The guest presses the
 * payment page's button, lands on the fake's Checkout page and submits the card there; the
 * fake's webhooks are held back, and the event the card made is the notification the test
 * delivers (a decline's `payment_intent.payment_failed`: Checkout asks for another card).
 */
export async function stripeDriver(): Promise<ContractDriver> {
  const fake: StripeFake = await startStripeFake();
  const t = await startListeningApp({ env });
  await useStripeAccount(t, t.tenant.tenantId, fake);
  assert.equal((await t.app.payreq.providers.forTenant(t.tenant.tenantId)).name, 'stripe');
  fake.holdWebhooks(true);
  const outcomeEvents = ['checkout.session.completed', 'payment_intent.payment_failed', 'setup_intent.setup_failed'];

  return {
    name: 'stripe',
    t,
    cards: { accepted: STRIPE_CARDS.visa, refused: STRIPE_CARDS.declined, technical: STRIPE_CARDS.processingError },
    declineKeepsAttemptOpen: true,
    maskedPan: /^X{12}\d{4}$/,
    givesUpAfterMs: STRIPE_TRIES * stripeRequestTimeoutMs(PROVIDER_TIMEOUT_MS) + 500,
    async guestPays(_id, paymentLink, card) {
      const visit = await openCheckout(t, paymentLink);
      assert.ok(visit, 'the payment page sends the guest to Checkout');
      fake.takeHeld();
      await submitCheckout(visit, card);
      const sent = fake.takeHeld().find((d) => outcomeEvents.includes(d.event.type as string));
      assert.ok(sent, 'Stripe sent the attempt’s event');
      return { path: '/ipn/stripe/', headers: sent.headers, body: sent.body };
    },
    forged: (n) => ({
      ...n,
      headers: {
        ...n.headers,
        'stripe-signature': (n.headers['stripe-signature'] ?? '').replace(/v1=[0-9a-f]+/, `v1=${'f'.repeat(64)}`),
      },
    }),
    async cardGoesBad(id, how = 'hard') {
      const setup = [...fake.account.objects.values()].find(
        (o) =>
          o.object === 'setup_intent' &&
          o.status === 'succeeded' &&
          (o.metadata as Record<string, string>).payreq_request === id,
      );
      assert.ok(setup?.payment_method, 'the saved card');
      fake.ops.goBad(setup.payment_method as string, how === 'hard' ? LATER_DECLINES.hard : LATER_DECLINES.soft);
    },
    failNext: (op, fault) => fake.failNext(STRIPE_ROUTE[op], STRIPE_FAULT[fault]),
    async close() {
      await t.close();
      fake.clearFaults();
      await fake.close();
    },
  };
}
