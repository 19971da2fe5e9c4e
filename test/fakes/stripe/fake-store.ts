import { randomBytes } from 'node:crypto';
import type { FakeClock } from '../lyra/fake-clock.ts';
import { AUTHENTICATION_REQUIRED, type CardRule, type Decline, ruleOf } from './test-cards.ts';

/**
 * One Stripe account as the fake keeps it: its objects as Stripe shows them (shapes from
 * stripe/openapi `openapi/fixtures3.json`, the fields payreq reads and a few around them),
 * their events, its webhook endpoints, balance transactions and payouts. INVENTED where the
 * fake must decide what Stripe does not say: ids (random, Stripe's prefixes), the fee (1.5 % +
 * 25 minor units a charge, Stripe's standard European card price), when a payout is made (when
 * a test asks).
 */
export type StripeObject = Record<string, unknown> & { id: string; object: string; created: number };

/** A Stripe error answer (API reference, "Errors"): the HTTP status and the `error` object. */
export class FakeStripeError extends Error {
  readonly status: number;
  readonly error: Record<string, unknown>;
  constructor(status: number, error: Record<string, unknown>) {
    super(String(error.message ?? 'error'));
    this.status = status;
    this.error = error;
  }
}

export const invalid = (message: string, extra: Record<string, unknown> = {}) =>
  new FakeStripeError(400, { type: 'invalid_request_error', message, ...extra });
export const missing = (id: string, param = 'id') =>
  new FakeStripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such object: '${id}'`,
  });

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

/** The networks' windows for a merchant-initiated hold (Stripe, "Place a hold on a payment method"). */
const DAY = 86_400;
const HOLD_WINDOW_S: Record<CardRule['brand'], number> = {
  visa: 4 * DAY + 18 * 3600,
  mastercard: 7 * DAY,
  amex: 7 * DAY,
};

/** A saved card as the fake keeps it: its number's rule, and what a test made of it since. */
interface CardState {
  number: string;
  rule: CardRule;
  /** Every later charge is declined so (a card gone bad after it was saved). */
  goneBad?: Decline;
}

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
  event: StripeObject;
}

export interface FakeAccount {
  /** `acct_…`: the account's id. */
  id: string;
  secretKey: string;
  livemode: boolean;
  objects: Map<string, StripeObject>;
  cards: Map<string, CardState>;
  events: StripeObject[];
  /** Shown in place of a PaymentIntent's own status until settleShown() (the "unknown status" fault). */
  shown: Map<string, string>;
}

export function fakeAccount(secretKey: string): FakeAccount {
  return {
    id: newId('acct'),
    secretKey,
    livemode: secretKey.includes('_live_'),
    objects: new Map(),
    cards: new Map(),
    events: [],
    shown: new Map(),
  };
}

/** The account's business: what each API call and the hosted page do to its objects. */
export function accountOps(a: FakeAccount, clock: FakeClock, emit: (a: FakeAccount, event: StripeObject) => void) {
  const now = () => Math.floor(clock.now().getTime() / 1000);
  const put = (o: StripeObject) => {
    a.objects.set(o.id, o);
    return o;
  };
  const get = (id: string, kind: string, param = 'id'): StripeObject => {
    const o = a.objects.get(id);
    if (!o || o.object !== kind) throw missing(id, param);
    return o;
  };
  const event = (type: string, object: StripeObject, idempotencyKey: string | null = null) => {
    const e: StripeObject = {
      id: newId('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: now(),
      data: { object: structuredClone(object) },
      livemode: a.livemode,
      pending_webhooks: 0,
      request: { id: null, idempotency_key: idempotencyKey },
      type,
    };
    a.events.push(e);
    emit(a, e);
  };

  /** A balance transaction for money in or out (a charge captured, a refund), not paid out yet. */
  function balance(type: 'charge' | 'refund' | 'payout', amount: number, currency: string, source: string) {
    const fee = type === 'charge' ? Math.round(amount * 0.015) + 25 : 0;
    return put({
      id: newId('txn'),
      object: 'balance_transaction',
      amount,
      available_on: now(),
      created: now(),
      currency,
      description: null,
      fee,
      fee_details: fee ? [{ amount: fee, currency, description: 'Stripe processing fees', type: 'stripe_fee' }] : [],
      net: amount - fee,
      reporting_category: type,
      source,
      status: 'available',
      type,
      payout: null,
    }).id;
  }

  function cardObject(state: CardState, expMonth: number, expYear: number) {
    return {
      brand: state.rule.brand,
      country: 'FR',
      display_brand: state.rule.brand,
      exp_month: expMonth,
      exp_year: expYear,
      fingerprint: state.number.slice(-8),
      funding: 'credit',
      last4: state.number.slice(-4),
      networks: { available: [state.rule.brand], preferred: null },
    };
  }

  /** A card typed on the hosted page: a PaymentMethod (not attached yet). */
  function paymentMethod(number: string, expMonth: number, expYear: number): StripeObject {
    const rule = ruleOf(number);
    if (!rule) throw invalid('Your card number is incorrect.', { code: 'incorrect_number' });
    const state: CardState = { number, rule };
    const pm = put({
      id: newId('pm'),
      object: 'payment_method',
      billing_details: { address: null, email: null, name: null, phone: null },
      card: cardObject(state, expMonth, expYear),
      created: now(),
      customer: null,
      livemode: a.livemode,
      metadata: {},
      type: 'card',
    });
    a.cards.set(pm.id, state);
    return pm;
  }

  function cardError(decline: Decline, extra: Record<string, unknown>): FakeStripeError {
    return new FakeStripeError(402, {
      type: 'card_error',
      code: decline.code,
      ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
      message: decline.message,
      doc_url: `https://stripe.com/docs/error-codes/${decline.code}`,
      ...extra,
    });
  }

  /**
   * A charge on a card: authorised (a hold, `captured: false`, with its `capture_before`) or
   * captured at once; or declined (failed), by the card's rule or what a test made of it.
   */
  function charge(
    pi: StripeObject,
    pmId: string,
    opts: { capture: boolean; offSession: boolean },
  ): { charge?: StripeObject; decline?: Decline } {
    const state = a.cards.get(pmId);
    if (!state) throw missing(pmId, 'payment_method');
    const decline =
      state.goneBad ??
      state.rule.chargeDecline ??
      (opts.offSession && state.rule.alwaysAuthenticates ? AUTHENTICATION_REQUIRED : undefined);
    const pm = a.objects.get(pmId) as StripeObject & { card: Record<string, unknown> };
    const amount = pi.amount as number;
    const currency = pi.currency as string;
    if (decline?.code === 'authentication_required') return { decline };
    const ch = put({
      id: newId('ch'),
      object: 'charge',
      amount,
      amount_captured: decline ? 0 : opts.capture ? amount : 0,
      amount_refunded: 0,
      balance_transaction: null,
      captured: !decline && opts.capture,
      created: now(),
      currency,
      customer: pi.customer ?? null,
      disputed: false,
      failure_code: decline ? (decline.declineCode ?? decline.code) : null,
      failure_message: decline?.message ?? null,
      livemode: a.livemode,
      metadata: structuredClone(pi.metadata ?? {}),
      outcome: {
        type: decline ? 'issuer_declined' : 'authorized',
        reason: decline?.declineCode ?? null,
        network_status: decline ? 'declined_by_network' : 'approved_by_network',
      },
      paid: !decline,
      payment_intent: pi.id,
      payment_method: pmId,
      payment_method_details: {
        type: 'card',
        card: {
          ...pm.card,
          ...(decline || opts.capture ? {} : { capture_before: now() + HOLD_WINDOW_S[state.rule.brand] }),
          network_transaction_id: newId('ntx'),
        },
      },
      refunded: false,
      status: decline ? 'failed' : 'succeeded',
    });
    if (!decline && opts.capture) ch.balance_transaction = balance('charge', amount, currency, ch.id);
    return { charge: ch, ...(decline ? { decline } : {}) };
  }

  function declineOn(pi: StripeObject, decline: Decline, ch: StripeObject | undefined, pmId: string) {
    pi.status = 'requires_payment_method';
    pi.last_payment_error = {
      type: 'card_error',
      code: decline.code,
      ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
      message: decline.message,
      ...(ch ? { charge: ch.id } : {}),
      payment_method: structuredClone(a.objects.get(pmId)),
    };
    if (ch) pi.latest_charge = ch.id;
  }

  return {
    get,
    put,
    now,
    event,
    paymentMethod,
    cardError,

    createCustomer(p: { email?: string; metadata?: Record<string, string> }) {
      const c = put({
        id: newId('cus'),
        object: 'customer',
        created: now(),
        email: p.email ?? null,
        livemode: a.livemode,
        metadata: p.metadata ?? {},
      });
      event('customer.created', c);
      return c;
    },

    /** A Checkout Session; setup mode makes its SetupIntent now (payment mode its PaymentIntent on submit). */
    createSession(p: {
      mode: 'payment' | 'setup';
      customer: string | null;
      currency: string | null;
      amount: number | null;
      clientReferenceId: string | null;
      metadata: Record<string, string>;
      intentMetadata: Record<string, string>;
      captureMethod: string | null;
      successUrl: string;
      cancelUrl: string | null;
      locale: string | null;
      baseUrl: string;
    }) {
      const id = `cs_${a.livemode ? 'live' : 'test'}_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
      let setupIntent: string | null = null;
      if (p.mode === 'setup') {
        setupIntent = put({
          id: newId('seti'),
          object: 'setup_intent',
          cancellation_reason: null,
          created: now(),
          customer: p.customer,
          last_setup_error: null,
          livemode: a.livemode,
          metadata: p.intentMetadata,
          payment_method: null,
          payment_method_types: ['card'],
          status: 'requires_payment_method',
          usage: 'off_session',
        }).id;
      }
      return put({
        id,
        object: 'checkout.session',
        amount_subtotal: p.amount,
        amount_total: p.amount,
        cancel_url: p.cancelUrl,
        client_reference_id: p.clientReferenceId,
        created: now(),
        currency: p.currency,
        customer: p.customer,
        expires_at: now() + DAY,
        livemode: a.livemode,
        locale: p.locale,
        metadata: p.metadata,
        mode: p.mode,
        payment_intent: null,
        payment_intent_data: {
          metadata: p.intentMetadata,
          ...(p.captureMethod ? { capture_method: p.captureMethod } : {}),
        },
        payment_method_types: ['card'],
        payment_status: p.mode === 'setup' ? 'no_payment_required' : 'unpaid',
        setup_intent: setupIntent,
        status: 'open',
        success_url: p.successUrl,
        url: `${p.baseUrl}/pay/${id}`,
      });
    },

    /**
     * The guest submits a card on the session's page. A payment: a PaymentIntent (made at the
     * first submission, kept for the next ones, as Checkout keeps one per session) confirmed,
     * captured at once or declined (the session stays open: the page asks for another card).
     * A setup: the card saved on the customer, or the saving declined. Answers the session's
     * state and, on a decline, its message.
     */
    submitSession(sessionId: string, card: { number: string; expMonth: number; expYear: number }) {
      const s = get(sessionId, 'checkout.session');
      if (s.status !== 'open') return { done: s.status === 'complete', error: 'This session is no longer open.' };
      const pm = paymentMethod(card.number, card.expMonth, card.expYear);
      const state = a.cards.get(pm.id) as CardState;
      if (s.mode === 'setup') {
        const si = get(s.setup_intent as string, 'setup_intent');
        const decline = state.rule.setupDecline;
        if (decline) {
          si.last_setup_error = {
            type: 'card_error',
            code: decline.code,
            ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
            message: decline.message,
          };
          event('setup_intent.setup_failed', si);
          return { done: false, error: decline.message };
        }
        pm.customer = s.customer;
        si.payment_method = pm.id;
        si.status = 'succeeded';
        si.last_setup_error = null;
        s.status = 'complete';
        event('payment_method.attached', pm);
        event('setup_intent.succeeded', si);
        event('checkout.session.completed', s);
        return { done: true };
      }
      let pi = s.payment_intent ? get(s.payment_intent as string, 'payment_intent') : undefined;
      if (!pi) {
        pi = put({
          id: newId('pi'),
          object: 'payment_intent',
          amount: s.amount_total,
          amount_capturable: 0,
          amount_received: 0,
          canceled_at: null,
          cancellation_reason: null,
          capture_method: (s.payment_intent_data as { capture_method?: string }).capture_method ?? 'automatic_async',
          created: now(),
          currency: s.currency,
          customer: s.customer,
          last_payment_error: null,
          latest_charge: null,
          livemode: a.livemode,
          metadata: structuredClone((s.payment_intent_data as { metadata: Record<string, string> }).metadata),
          payment_method: null,
          payment_method_types: ['card'],
          status: 'requires_payment_method',
        });
        s.payment_intent = pi.id;
        event('payment_intent.created', pi);
      }
      pi.payment_method = pm.id;
      const decline = state.rule.setupDecline ?? state.rule.chargeDecline;
      const made = decline ? { decline, charge: undefined } : charge(pi, pm.id, { capture: true, offSession: false });
      if (made.decline) {
        declineOn(pi, made.decline, made.charge, pm.id);
        if (made.charge) event('charge.failed', made.charge);
        event('payment_intent.payment_failed', pi);
        return { done: false, error: made.decline.message };
      }
      const ch = made.charge as StripeObject;
      pi.status = 'succeeded';
      pi.amount_received = pi.amount;
      pi.latest_charge = ch.id;
      pi.last_payment_error = null;
      s.status = 'complete';
      s.payment_status = 'paid';
      event('charge.succeeded', ch);
      event('payment_intent.succeeded', pi);
      event('checkout.session.completed', s);
      return { done: true };
    },

    /** `POST /v1/payment_intents` with `confirm=true`: what payreq's holds do (off session, manual capture). */
    createPaymentIntent(
      p: {
        amount: number;
        currency: string;
        customer: string | null;
        paymentMethod: string | null;
        captureMethod: string;
        confirm: boolean;
        offSession: boolean;
        metadata: Record<string, string>;
      },
      idempotencyKey: string | null,
    ) {
      if (p.customer) get(p.customer, 'customer', 'customer');
      if (p.paymentMethod) {
        const pm = get(p.paymentMethod, 'payment_method', 'payment_method');
        if (p.customer && pm.customer !== p.customer) {
          throw invalid(`The provided PaymentMethod ${pm.id} is not attached to customer ${p.customer}.`, {
            code: 'resource_missing',
            param: 'payment_method',
          });
        }
      }
      const pi = put({
        id: newId('pi'),
        object: 'payment_intent',
        amount: p.amount,
        amount_capturable: 0,
        amount_received: 0,
        canceled_at: null,
        cancellation_reason: null,
        capture_method: p.captureMethod,
        created: now(),
        currency: p.currency,
        customer: p.customer,
        last_payment_error: null,
        latest_charge: null,
        livemode: a.livemode,
        metadata: p.metadata,
        payment_method: p.paymentMethod,
        payment_method_types: ['card'],
        status: p.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
      });
      event('payment_intent.created', pi, idempotencyKey);
      if (!p.confirm || !p.paymentMethod) return pi;
      const made = charge(pi, p.paymentMethod, { capture: p.captureMethod !== 'manual', offSession: p.offSession });
      if (made.decline) {
        declineOn(pi, made.decline, made.charge, p.paymentMethod);
        if (made.charge) event('charge.failed', made.charge, idempotencyKey);
        event('payment_intent.payment_failed', pi, idempotencyKey);
        throw cardError(made.decline, {
          ...(made.charge ? { charge: made.charge.id } : {}),
          payment_intent: structuredClone(pi),
          payment_method: structuredClone(a.objects.get(p.paymentMethod)),
        });
      }
      const ch = made.charge as StripeObject;
      pi.latest_charge = ch.id;
      if (p.captureMethod === 'manual') {
        pi.status = 'requires_capture';
        pi.amount_capturable = pi.amount;
        event('charge.succeeded', ch, idempotencyKey);
        event('payment_intent.amount_capturable_updated', pi, idempotencyKey);
      } else {
        pi.status = 'succeeded';
        pi.amount_received = pi.amount;
        event('charge.succeeded', ch, idempotencyKey);
        event('payment_intent.succeeded', pi, idempotencyKey);
      }
      return pi;
    },

    capture(id: string, amountToCapture: number | undefined, idempotencyKey: string | null) {
      const pi = get(id, 'payment_intent', 'intent');
      if (pi.status !== 'requires_capture') {
        throw invalid(
          `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
          { code: 'payment_intent_unexpected_state', payment_intent: structuredClone(pi) },
        );
      }
      const amount = amountToCapture ?? (pi.amount_capturable as number);
      if (!Number.isSafeInteger(amount) || amount <= 0 || amount > (pi.amount_capturable as number)) {
        throw invalid('The amount to capture is greater than the amount capturable.', {
          code: 'amount_too_large',
          param: 'amount_to_capture',
        });
      }
      const ch = get(pi.latest_charge as string, 'charge');
      pi.status = 'succeeded';
      pi.amount_received = amount;
      pi.amount_capturable = 0;
      ch.captured = true;
      ch.amount_captured = amount;
      // The rest of the hold is released: shown as refunded on the charge, as Stripe does.
      ch.amount_refunded = (ch.amount as number) - amount;
      ch.balance_transaction = balance('charge', amount, pi.currency as string, ch.id);
      event('charge.captured', ch, idempotencyKey);
      event('payment_intent.succeeded', pi, idempotencyKey);
      return pi;
    },

    cancel(id: string, reason: string | null, idempotencyKey: string | null) {
      const pi = get(id, 'payment_intent', 'intent');
      const cancellable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'];
      if (!cancellable.includes(pi.status as string)) {
        throw invalid(
          `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancellable.join(', ')}.`,
          { code: 'payment_intent_unexpected_state', payment_intent: structuredClone(pi) },
        );
      }
      releaseCharge(pi);
      pi.status = 'canceled';
      pi.canceled_at = now();
      pi.cancellation_reason = reason ?? 'requested_by_customer';
      pi.amount_capturable = 0;
      event('payment_intent.canceled', pi, idempotencyKey);
      return pi;
    },

    refund(
      p: { paymentIntent: string; amount: number | undefined; metadata: Record<string, string> },
      key: string | null,
    ) {
      const pi = get(p.paymentIntent, 'payment_intent', 'payment_intent');
      if (pi.status !== 'succeeded') {
        throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
          code: 'charge_not_refundable',
        });
      }
      const ch = get(pi.latest_charge as string, 'charge');
      const refundable = (pi.amount_received as number) - refundedOf(pi.id);
      const amount = p.amount ?? refundable;
      if (!Number.isSafeInteger(amount) || amount <= 0) throw invalid('Invalid positive integer', { param: 'amount' });
      if (amount > refundable) {
        throw invalid(
          `Refund amount (${amount}) is greater than unrefunded amount on charge (${refundable})`,
          refundable === 0 ? { code: 'charge_already_refunded' } : { param: 'amount' },
        );
      }
      const re = put({
        id: newId('re'),
        object: 'refund',
        amount,
        balance_transaction: null,
        charge: ch.id,
        created: now(),
        currency: pi.currency,
        failure_reason: null,
        metadata: p.metadata,
        payment_intent: pi.id,
        reason: null,
        status: 'succeeded',
      });
      re.balance_transaction = balance('refund', -amount, pi.currency as string, re.id);
      ch.amount_refunded = (ch.amount_refunded as number) + amount;
      ch.refunded = refundedOf(pi.id) >= (pi.amount_received as number);
      event('refund.created', re, key);
      event('charge.refunded', ch, key);
      return re;
    },

    /** What was given back of a PaymentIntent, by its refunds that succeeded. */
    refundedOf,

    detach(pmId: string, key: string | null) {
      const pm = get(pmId, 'payment_method', 'payment_method');
      if (!pm.customer)
        throw invalid(`The payment method you provided is not attached to a customer so detachment is impossible.`);
      pm.customer = null;
      event('payment_method.detached', pm, key);
      return pm;
    },

    /** The clock passed a hold's `capture_before`: Stripe cancels it, `charge.expired`. */
    expireHolds() {
      for (const pi of [...a.objects.values()]) {
        if (pi.object !== 'payment_intent' || pi.status !== 'requires_capture') continue;
        const ch = a.objects.get(pi.latest_charge as string);
        const card = (ch?.payment_method_details as { card?: { capture_before?: number } } | undefined)?.card;
        if (!ch || !card?.capture_before || card.capture_before > now()) continue;
        releaseCharge(pi);
        pi.status = 'canceled';
        pi.canceled_at = now();
        pi.cancellation_reason = 'automatic';
        pi.amount_capturable = 0;
        event('charge.expired', ch);
        event('payment_intent.canceled', pi);
      }
    },

    /** The cardholder disputes a payment with the bank (`charge.dispute.created`). */
    dispute(piId: string, reason = 'fraudulent') {
      const pi = get(piId, 'payment_intent');
      const ch = get(pi.latest_charge as string, 'charge');
      ch.disputed = true;
      const dp = put({
        id: newId('dp'),
        object: 'dispute',
        amount: pi.amount_received,
        balance_transactions: [],
        charge: ch.id,
        created: now(),
        currency: pi.currency,
        evidence_details: { due_by: now() + 7 * DAY, has_evidence: false, past_due: false, submission_count: 0 },
        is_charge_refundable: false,
        livemode: a.livemode,
        metadata: {},
        payment_intent: pi.id,
        reason,
        status: 'needs_response',
      });
      event('charge.dispute.created', dp);
      return dp;
    },

    /** A test makes the saved card decline every charge from now on. */
    goBad(pmId: string, decline: Decline) {
      const state = a.cards.get(pmId);
      if (!state) throw new Error(`fake: no card ${pmId}`);
      state.goneBad = decline;
    },

    /**
     * A payout of every balance transaction not paid out yet, as Stripe's automatic payouts
     * do (INVENTED: when; Stripe pays out on a schedule): the payout, its own `type: payout`
     * transaction, and each included transaction marked with it.
     */
    payout(arrival: Date) {
      const due = [...a.objects.values()].filter(
        (o) => o.object === 'balance_transaction' && !o.payout && o.type !== 'payout',
      );
      if (due.length === 0) return undefined;
      const currency = due[0]?.currency as string;
      const net = due.reduce((sum, t) => sum + (t.net as number), 0);
      const po = put({
        id: newId('po'),
        object: 'payout',
        amount: net,
        arrival_date: Math.floor(arrival.getTime() / 1000),
        automatic: true,
        balance_transaction: null,
        created: now(),
        currency,
        description: 'STRIPE PAYOUT',
        livemode: a.livemode,
        metadata: {},
        method: 'standard',
        status: 'paid',
        type: 'bank_account',
      });
      const own = balance('payout', -net, currency, po.id);
      po.balance_transaction = own;
      for (const t of due) t.payout = po.id;
      (a.objects.get(own) as StripeObject).payout = po.id;
      event('payout.paid', po);
      return po;
    },
  };

  /** An authorisation given back (a hold cancelled or lapsed): its charge shows it refunded, nothing captured. */
  function releaseCharge(pi: StripeObject) {
    const ch = pi.latest_charge ? a.objects.get(pi.latest_charge as string) : undefined;
    if (ch && ch.status === 'succeeded' && !ch.captured) {
      ch.amount_refunded = ch.amount;
      ch.refunded = true;
    }
  }

  function refundedOf(piId: string): number {
    let sum = 0;
    for (const o of a.objects.values()) {
      if (o.object === 'refund' && o.payment_intent === piId && o.status === 'succeeded') sum += o.amount as number;
    }
    return sum;
  }
}

export type AccountOps = ReturnType<typeof accountOps>;
