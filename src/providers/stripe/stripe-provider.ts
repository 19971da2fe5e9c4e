import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { isUuid } from '../../domain/index.ts';
import {
  type GuestCheckoutInput,
  type HostedPaymentPage,
  IgnoredNotification,
  InvalidNotificationError,
  type MoneyAnswer,
  type MoneyCall,
  type PaymentProvider,
  ProviderError,
  type ProviderNotification,
  type ProviderOrder,
  type TransactionCall,
} from '../payment-provider.ts';
import { errorCode, idOf, moneyError, paced, readError, type StripeClient, stripeClient } from './client.ts';
import type { StripeCustomerStore } from './customer-store.ts';
import {
  CHECKOUT_LOCALES,
  captureBefore,
  cardNetworkOfBrand,
  fromStripeAmount,
  METADATA,
  maskedPanOf,
  toStripeAmount,
} from './mapping.ts';
import { orderView } from './order-view.ts';
import type { StripeAccount } from './stripe-account.ts';
import { verifySignature } from './webhook-signature.ts';

/** Where Stripe serves Checkout's pages (a session's `url`). */
const CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/** A Stripe call that should have answered in time: below the runner's own bound. */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface StripeProviderOptions {
  /** Each HTTP request's own timeout (each try of the SDK's). */
  timeoutMs?: number;
  /** The Stripe Customers payreq made per request (the order view starts from them). */
  customers: StripeCustomerStore;
  /** The clock a webhook's signing time is judged by. */
  now?: () => Date;
}

/** Stripe's adapter: the PaymentProvider, and its webhook events read with the account's keys. */
export interface StripeProvider extends PaymentProvider {
  /**
   * A webhook event posted to `/ipn/stripe/`, verified with this account's signing secret
   * before anything in it is read, then read (asking Stripe, with the account's key, for what
   * an event only names). `claimedOrder`: the request the event was found to be about when it
   * carries no metadata of payreq's (a dispute, an expired charge). Throws
   * InvalidNotificationError (a bad signature: changes nothing) or IgnoredNotification (an
   * authentic event payreq does not apply: acknowledged).
   */
  receiveEvent(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
    claimedOrder?: string,
  ): Promise<ProviderNotification>;
}

/** A saved card as payreq keeps it (sealed): the Customer and the PaymentMethod Stripe attached to it. */
export function cardTokenOf(customer: string, paymentMethod: string): string {
  return `${customer}/${paymentMethod}`;
}

function cardOf(token: string): { customer: string; paymentMethod: string } {
  const [customer, paymentMethod, ...rest] = token.split('/');
  if (!customer || !paymentMethod || rest.length > 0) {
    throw new ProviderError('refused', 'stripe: the saved card is not a Stripe customer and payment method');
  }
  return { customer, paymentMethod };
}

export function stripeProvider(account: StripeAccount, opts: StripeProviderOptions): StripeProvider {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = opts.now ?? (() => new Date());
  /** A call paced through Stripe's rate limiter, for at most one try's length. */
  const limited = <T>(call: () => Promise<T>): Promise<T> => paced(call, timeoutMs);
  let client: Promise<StripeClient> | undefined;
  const api = (): Promise<StripeClient> => {
    client ??= stripeClient({ apiUrl: account.apiUrl, secretKey: account.secretKey, timeoutMs });
    return client;
  };

  /** The Customer of this request on this account: made once, found again for a new attempt. */
  async function customerFor(stripe: StripeClient, input: GuestCheckoutInput): Promise<string> {
    const known = (await opts.customers.forOrder(input.paymentRequestId)).find((c) => c.account === account.version);
    if (known) return known.customerId;
    const customer = await limited(() =>
      stripe.customers.create(
        {
          email: input.guestEmail,
          metadata: { [METADATA.request]: input.paymentRequestId, [METADATA.reference]: input.reference },
        },
        // Two tabs opening the link at once make one customer: the same key replays the first.
        { idempotencyKey: `payreq-customer-${input.paymentRequestId}-${account.version}` },
      ),
    );
    await opts.customers.save({
      orderId: input.paymentRequestId,
      tenantId: account.tenantId,
      customerId: customer.id,
      account: account.version,
    });
    return customer.id;
  }

  /**
   * What a completed Checkout Session did, read from Stripe: a DEPOSIT paid (its
   * PaymentIntent), an IMPRINT's card saved (its SetupIntent and PaymentMethod). Undefined:
   * not complete, or not paid. One event id per session, whichever way it is learnt (the
   * webhook or the guest's return), so it is applied once.
   */
  async function fromSession(
    sessionId: string,
    orderId: string | undefined,
  ): Promise<ProviderNotification | undefined> {
    const stripe = await api();
    const session = await stripe.checkout.sessions.retrieve(sessionId);
    const order = session.client_reference_id ?? session.metadata?.[METADATA.request] ?? null;
    if (!order || !isUuid(order)) throw new IgnoredNotification(`session ${session.id} is not a payreq request's`);
    if (orderId !== undefined && order !== orderId) {
      throw new InvalidNotificationError(`session ${session.id} belongs to another request`);
    }
    if (session.status !== 'complete') return undefined;
    const eventId = `checkout:${session.id}`;
    if (session.mode === 'setup') {
      const setupId = idOf(session.setup_intent);
      if (!setupId) return undefined;
      const setup = await stripe.setupIntents.retrieve(setupId, { expand: ['payment_method'] });
      return registration(stripe, setup, order, eventId, idOf(session.customer), session.currency);
    }
    if (session.mode === 'payment' && session.payment_status === 'paid') {
      const paymentId = idOf(session.payment_intent);
      if (!paymentId) return undefined;
      return payment(
        stripe,
        await stripe.paymentIntents.retrieve(paymentId, { expand: ['latest_charge'] }),
        order,
        eventId,
      );
    }
    return undefined;
  }

  return {
    name: 'stripe',
    // Checkout lives on Stripe's own host; a stand-in (--api-url) serves it beside its API.
    hostedCheckout: { name: 'Stripe', origins: [...new Set([CHECKOUT_ORIGIN, new URL(account.apiUrl).origin])] },

    /**
     * A Checkout Session for one attempt (hosted: the card goes from the guest's browser to
     * Stripe, never to payreq): `mode=payment` charges a DEPOSIT at once, `mode=setup` saves an
     * IMPRINT's card on the request's Customer for the daily job's off-session hold.
     */
    async startGuestPayment(input): Promise<HostedPaymentPage> {
      const amount = toStripeAmount(input.amountCents, input.currency);
      if (amount === undefined)
        throw new ProviderError('technical', `stripe: ${input.currency} is not a currency payreq sends`);
      try {
        const stripe = await api();
        const customer = await customerFor(stripe, input);
        const metadata = { [METADATA.request]: input.paymentRequestId, [METADATA.reference]: input.reference };
        const currency = input.currency.toLowerCase();
        const common = {
          customer,
          client_reference_id: input.paymentRequestId,
          metadata,
          locale: CHECKOUT_LOCALES[input.language],
          // Required in setup mode (no payment method types given); sent for both.
          currency,
          // Stripe puts the session's id in place of the template on the way back.
          success_url: `${input.returnUrl}?session_id={CHECKOUT_SESSION_ID}`,
          ...(input.cancelUrl ? { cancel_url: input.cancelUrl } : {}),
          allowed_payment_method_types: ['card' as const],
        };
        const params: Stripe.Checkout.SessionCreateParams =
          input.requestType === 'IMPRINT'
            ? { ...common, mode: 'setup', setup_intent_data: { metadata } }
            : {
                ...common,
                mode: 'payment',
                line_items: [
                  {
                    quantity: 1,
                    price_data: {
                      currency,
                      unit_amount: amount,
                      product_data: { name: `${input.merchantName} ${input.reference}` },
                    },
                  },
                ],
                payment_intent_data: { metadata, capture_method: 'automatic' },
              };
        // A new attempt each time the guest asks (no money moves): a key of its own, so that
        // the SDK's retries of this one request make one session.
        const key = `payreq-checkout-${input.paymentRequestId}-${randomUUID()}`;
        const session = await limited(() => stripe.checkout.sessions.create(params, { idempotencyKey: key }));
        if (!session.url) throw new ProviderError('technical', `stripe: session ${session.id} has no url`);
        return { kind: 'hosted-page', url: session.url };
      } catch (err) {
        throw readError('start payment', err);
      }
    },

    async confirmGuestReturn(orderId, query) {
      const sessionId = query.session_id;
      if (!sessionId || !/^cs_[A-Za-z0-9_]{1,250}$/.test(sessionId)) return undefined;
      try {
        return await fromSession(sessionId, orderId);
      } catch (err) {
        if (err instanceof InvalidNotificationError) throw err;
        throw readError('guest return', err);
      }
    },

    /** Stripe's events need the account's key to be read (receiveEvent); nothing is read here. */
    parseNotification() {
      throw new InvalidNotificationError('stripe: events are read with the account they belong to');
    },

    /** Stripe sends the guest back with a plain GET (the session id in the address): nothing signed. */
    readBrowserReturn: () => undefined,

    async receiveEvent(rawBody, headers, claimedOrder) {
      verifySignature(rawBody, headers['stripe-signature'], account.webhookSecret, now());
      const event = readEvent(rawBody);
      const object = event.object;
      const metadataOrder = stringIn(object.metadata, METADATA.request);
      try {
        switch (event.type) {
          case 'checkout.session.completed':
          case 'checkout.session.async_payment_succeeded': {
            const id = stringIn(object, 'id');
            if (!id) throw new InvalidNotificationError(`${event.type}: no session id`);
            // Another sale on the hotel's account (the event is verified: what it says is Stripe's).
            const order = stringIn(object, 'client_reference_id') ?? metadataOrder;
            if (!order || !isUuid(order))
              throw new IgnoredNotification(`${event.type}: not a payreq request's session`);
            const n = await fromSession(id, undefined);
            if (!n) throw new IgnoredNotification(`${event.type}: session ${id} is not complete or not paid`);
            return n;
          }
          case 'payment_intent.succeeded': {
            const id = stringIn(object, 'id');
            // payreq's own capture of a hold: answered when it was made.
            if (stringIn(object.metadata, METADATA.operation) || object.capture_method === 'manual' || !id) {
              throw new IgnoredNotification('payment_intent.succeeded: a capture of payreq’s own');
            }
            if (!metadataOrder || !isUuid(metadataOrder)) {
              throw new IgnoredNotification('payment_intent.succeeded: not a payreq request’s payment');
            }
            const stripe = await api();
            const pi = await stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] });
            const n = await payment(stripe, pi, metadataOrder, event.id);
            if (!n) throw new IgnoredNotification(`payment_intent.succeeded: ${id} is ${pi.status}`);
            return n;
          }
          case 'charge.expired': {
            const pi = idOfField(object.payment_intent);
            const order = metadataOrder ?? claimedOrder;
            if (!pi || !order) throw new IgnoredNotification('charge.expired: not a hold of payreq’s');
            return { eventId: event.id, paymentRequestId: order, outcome: 'hold_lapsed', transactionId: pi };
          }
          case 'charge.dispute.created': {
            const pi = idOfField(object.payment_intent);
            const order = claimedOrder ?? metadataOrder;
            if (!pi || !order) throw new IgnoredNotification('charge.dispute.created: not a payment of payreq’s');
            const amount = typeof object.amount === 'number' ? object.amount : undefined;
            const currency = typeof object.currency === 'string' ? object.currency.toUpperCase() : undefined;
            return {
              eventId: event.id,
              paymentRequestId: order,
              outcome: 'disputed',
              transactionId: pi,
              ...(amount !== undefined && currency
                ? { amountCents: fromStripeAmount(amount, currency) ?? 0, currency }
                : {}),
              ...(typeof object.reason === 'string' ? { detail: object.reason } : {}),
            };
          }
          default:
            // Guest declines on Checkout (the page asks for another card), payreq's own holds,
            // cancels and refunds (answered when made; reconcile reads any left undecided),
            // expired sessions (the link still takes another attempt): acknowledged, nothing moves.
            throw new IgnoredNotification(`${event.type}: nothing payreq applies`);
        }
      } catch (err) {
        if (err instanceof InvalidNotificationError) throw err;
        // Stripe could not be asked: 5xx, and Stripe sends the event again.
        throw readError(event.type, err);
      }
    },

    async silentHold(call) {
      const { customer, paymentMethod } = cardOf(call.cardToken);
      const stripe = await api();
      let pi: Stripe.PaymentIntent;
      try {
        pi = await limited(() =>
          stripe.paymentIntents.create(
            {
              amount: amountOf(call.amountCents, call.currency),
              currency: call.currency.toLowerCase(),
              customer,
              payment_method: paymentMethod,
              capture_method: 'manual',
              confirm: true,
              off_session: true,
              metadata: keyed(call),
              expand: ['latest_charge'],
            },
            { idempotencyKey: call.idempotencyKey },
          ),
        );
      } catch (err) {
        // The saved card (or its customer) is not on this account: no hold can ever be placed
        // with it here; the guest must give the card again.
        if (errorCode(err) === 'resource_missing') {
          throw new ProviderError('refused', `stripe silent hold: the saved card is not on this account`, {
            transactionId: paymentMethod,
            status: 'resource_missing',
            declineCode: 'resource_missing',
          });
        }
        throw moneyError('silent hold', err);
      }
      return holdAnswer(stripe, pi);
    },

    async capture(call) {
      const amount = amountOf(call.amountCents, call.currency);
      const stripe = await api();
      try {
        const pi = await limited(() =>
          stripe.paymentIntents.capture(
            call.transactionId,
            { amount_to_capture: amount },
            { idempotencyKey: call.idempotencyKey },
          ),
        );
        if (pi.status === 'succeeded' && pi.amount_received === amount)
          return { transactionId: pi.id, status: pi.status };
        throw new ProviderError('unknown', `stripe capture: ${pi.id} is ${pi.status}, ${pi.amount_received} received`);
      } catch (err) {
        if (errorCode(err) === 'payment_intent_unexpected_state') return settledAlready(stripe, call, 'capture', err);
        throw moneyError('capture', err);
      }
    },

    release: (call) => cancelHold(call, 'release'),

    /** A refund of a payment or a captured hold: its own Refund object, with the operation's key. */
    async refund(call) {
      const amount = amountOf(call.amountCents, call.currency);
      const stripe = await api();
      let refund: Stripe.Refund;
      try {
        refund = await limited(() =>
          stripe.refunds.create(
            { payment_intent: call.transactionId, amount, metadata: keyed(call) },
            { idempotencyKey: call.idempotencyKey },
          ),
        );
      } catch (err) {
        throw moneyError('refund', err);
      }
      const answer = {
        transactionId: refund.id,
        status: refund.status ?? 'unknown',
        declineCode: refund.failure_reason ?? null,
      };
      if (refund.status === 'succeeded') return { transactionId: refund.id, status: refund.status };
      if (refund.status === 'failed' || refund.status === 'canceled') {
        throw new ProviderError('refused', `stripe refund: ${refund.id} is ${refund.status}`, answer);
      }
      // pending, requires_action: not given back yet; reconcile reads its status later.
      throw new ProviderError('unknown', `stripe refund: ${refund.id} is ${refund.status}`, answer);
    },

    /**
     * A hold is cancelled like a release. A saved card moved no money: what makes it unusable
     * is detaching its PaymentMethod from the customer (Stripe: "Detach a PaymentMethod").
     */
    async void(call) {
      if (!call.transactionId.startsWith('seti_')) return cancelHold(call, 'void');
      const stripe = await api();
      try {
        const setup = await stripe.setupIntents.retrieve(call.transactionId);
        const pm = idOf(setup.payment_method);
        if (!pm) throw new ProviderError('refused', `stripe void: ${setup.id} saved no card`);
        await limited(() => stripe.paymentMethods.detach(pm, {}, { idempotencyKey: call.idempotencyKey }));
        return { transactionId: setup.id, status: 'detached' };
      } catch (err) {
        throw moneyError('void', err);
      }
    },

    async getOrder(orderId): Promise<ProviderOrder> {
      try {
        // Every customer of the request: another version may be the same Stripe account (a key set
        // again); one this account does not know shows nothing here.
        const customers = await opts.customers.forOrder(orderId);
        return await orderView(await api(), orderId, customers);
      } catch (err) {
        throw readError('order view', err);
      }
    },
  };

  /** Cancel an open hold (a release, a void): done once Stripe shows it canceled. */
  async function cancelHold(call: TransactionCall, what: 'release' | 'void'): Promise<MoneyAnswer> {
    const stripe = await api();
    try {
      const pi = await limited(() =>
        stripe.paymentIntents.cancel(call.transactionId, {}, { idempotencyKey: call.idempotencyKey }),
      );
      if (pi.status === 'canceled') return { transactionId: pi.id, status: pi.status };
      throw new ProviderError('unknown', `stripe ${what}: ${pi.id} is ${pi.status}`);
    } catch (err) {
      if (errorCode(err) === 'payment_intent_unexpected_state') return settledAlready(stripe, call, 'cancel', err);
      throw moneyError(what, err);
    }
  }

  /**
   * Stripe refused a capture or cancel because of the PaymentIntent's state: read it. Already
   * what was asked (a capture of this amount, a cancel: asked again after a lost answer, or a
   * hold that lapsed) is done; anything else is a refusal: nothing more moved.
   */
  async function settledAlready(
    stripe: StripeClient,
    call: TransactionCall & { amountCents?: number },
    want: 'capture' | 'cancel',
    err: unknown,
  ): Promise<MoneyAnswer> {
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.retrieve(call.transactionId);
    } catch (readErr) {
      throw moneyError(want, readErr);
    }
    const answer = { transactionId: pi.id, status: pi.status, declineCode: null };
    if (want === 'capture' && pi.status === 'succeeded' && pi.amount_received === call.amountCents) {
      return { transactionId: pi.id, status: pi.status };
    }
    if (want === 'cancel' && pi.status === 'canceled') return { transactionId: pi.id, status: pi.status };
    throw new ProviderError('refused', `stripe ${want}: ${pi.id} is ${pi.status} (${(err as Error).message})`, answer);
  }
}

/** The metadata of a money move: the request, the operation's key, the reference. */
function keyed(call: MoneyCall): Record<string, string> {
  return {
    [METADATA.request]: call.orderId,
    [METADATA.operation]: call.idempotencyKey,
    [METADATA.reference]: call.reference,
  };
}

function amountOf(hundredths: number, currency: string): number {
  const amount = toStripeAmount(hundredths, currency);
  if (amount === undefined)
    throw new ProviderError('technical', `stripe: ${hundredths}/100 ${currency} cannot be sent`);
  return amount;
}

/** The charge of a PaymentIntent, expanded or read. */
async function chargeOf(stripe: StripeClient, pi: Stripe.PaymentIntent): Promise<Stripe.Charge | undefined> {
  const charge = pi.latest_charge;
  if (!charge) return undefined;
  return typeof charge === 'string' ? stripe.charges.retrieve(charge) : charge;
}

/**
 * An off-session hold's PaymentIntent: `requires_capture` is the hold (its end from the
 * charge); a decline without an error thrown leaves it `requires_payment_method` with its
 * `last_payment_error`; one waiting for the cardholder (`requires_action`) can never be
 * completed off session: refused as authentication required. Anything else is in doubt.
 */
async function holdAnswer(stripe: StripeClient, pi: Stripe.PaymentIntent): Promise<MoneyAnswer> {
  if (pi.status === 'requires_capture') {
    const ends = captureBefore(await chargeOf(stripe, pi).catch(() => undefined));
    return { transactionId: pi.id, status: pi.status, ...(ends ? { holdEndsAt: ends } : {}) };
  }
  const error = pi.last_payment_error;
  const declineCode =
    error?.decline_code ?? error?.code ?? (pi.status === 'requires_action' ? 'authentication_required' : null);
  const answer = { transactionId: pi.id, status: pi.status, declineCode };
  if (pi.status === 'requires_payment_method' || pi.status === 'canceled' || pi.status === 'requires_action') {
    throw new ProviderError(
      'refused',
      `stripe silent hold: ${pi.id} is ${pi.status}${declineCode ? ` (${declineCode})` : ''}`,
      answer,
    );
  }
  throw new ProviderError('unknown', `stripe silent hold: ${pi.id} is ${pi.status}`, answer);
}

/** The card of a charge or a PaymentMethod, as a notification carries it. */
function cardFields(
  card:
    | { last4?: string | null; brand?: string | null; exp_month?: number | null; exp_year?: number | null }
    | null
    | undefined,
) {
  if (!card) return {};
  const masked = maskedPanOf(card.last4);
  return {
    ...(masked ? { maskedPan: masked, cardNetwork: cardNetworkOfBrand(card.brand) } : {}),
    ...(card.exp_month ? { expiryMonth: card.exp_month } : {}),
    ...(card.exp_year ? { expiryYear: card.exp_year } : {}),
  };
}

/** A DEPOSIT paid on Checkout: its PaymentIntent succeeded. */
async function payment(
  stripe: StripeClient,
  pi: Stripe.PaymentIntent,
  order: string,
  eventId: string,
): Promise<ProviderNotification | undefined> {
  if (pi.status !== 'succeeded') return undefined;
  const currency = pi.currency.toUpperCase();
  const amount = fromStripeAmount(pi.amount_received, currency);
  if (amount === undefined)
    throw new InvalidNotificationError(`${pi.id}: ${pi.currency} is not a currency payreq takes`);
  const charge = await chargeOf(stripe, pi);
  return {
    eventId,
    paymentRequestId: order,
    outcome: 'paid',
    transactionId: pi.id,
    amountCents: amount,
    currency,
    ...cardFields(charge?.payment_method_details?.card),
  };
}

/** An IMPRINT's card saved on Checkout: its SetupIntent succeeded, its PaymentMethod attached. */
async function registration(
  stripe: StripeClient,
  setup: Stripe.SetupIntent,
  order: string,
  eventId: string,
  sessionCustomer: string | null,
  currency: string | null,
): Promise<ProviderNotification | undefined> {
  if (setup.status !== 'succeeded') return undefined;
  const pm =
    typeof setup.payment_method === 'string'
      ? await stripe.paymentMethods.retrieve(setup.payment_method)
      : setup.payment_method;
  const customer = idOf(setup.customer) ?? sessionCustomer;
  if (!pm || !customer) throw new InvalidNotificationError(`${setup.id}: no card or no customer`);
  return {
    eventId,
    paymentRequestId: order,
    outcome: 'registered',
    transactionId: setup.id,
    cardToken: cardTokenOf(customer, pm.id),
    amountCents: 0,
    ...(currency ? { currency: currency.toUpperCase() } : {}),
    ...cardFields(pm.card),
  };
}

interface ReadEvent {
  id: string;
  type: string;
  object: Record<string, unknown> & { metadata?: unknown };
}

/** An event's id, type and object; anything else is refused (it verified, but is no event). */
function readEvent(rawBody: string): ReadEvent {
  let value: unknown;
  try {
    value = JSON.parse(rawBody);
  } catch {
    throw new InvalidNotificationError('the event is not JSON');
  }
  const e = value as { id?: unknown; type?: unknown; object?: unknown; data?: { object?: unknown } } | null;
  const object = e?.data?.object;
  if (
    typeof e?.id !== 'string' ||
    typeof e.type !== 'string' ||
    e.object !== 'event' ||
    typeof object !== 'object' ||
    object === null ||
    Array.isArray(object)
  ) {
    throw new InvalidNotificationError('not a Stripe event');
  }
  return { id: e.id, type: e.type, object: object as ReadEvent['object'] };
}

function stringIn(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function idOfField(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  return stringIn(value, 'id');
}

/**
 * The request an event is about, read BEFORE its signature can be checked (the key to check it
 * with is that request's tenant's): metadata payreq put on the object, or the session's
 * client_reference_id. Nothing else is read from an unverified event, and the claim only
 * chooses the key. Undefined: the object names no request of payreq's.
 */
export function claimedOrderOfEvent(rawBody: string): { orderId?: string; paymentIntent?: string } {
  let value: unknown;
  try {
    value = JSON.parse(rawBody);
  } catch {
    throw new InvalidNotificationError('the event is not JSON');
  }
  const object = (value as { data?: { object?: unknown } } | null)?.data?.object;
  const order =
    stringIn((object as { metadata?: unknown } | undefined)?.metadata, METADATA.request) ??
    stringIn(object, 'client_reference_id');
  const kind = stringIn(object, 'object');
  const paymentIntent =
    kind === 'payment_intent'
      ? stringIn(object, 'id')
      : idOfField((object as Record<string, unknown> | undefined)?.payment_intent);
  return {
    ...(order && isUuid(order) ? { orderId: order } : {}),
    ...(paymentIntent ? { paymentIntent } : {}),
  };
}
