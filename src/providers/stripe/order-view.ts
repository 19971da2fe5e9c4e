import type Stripe from 'stripe';
import { ProviderError, type ProviderOrder, type ProviderTransaction } from '../payment-provider.ts';
import { errorCode, idOf, type StripeClient } from './client.ts';
import type { StripeCustomerRow } from './customer-store.ts';
import {
  captureBefore,
  fromStripeAmount,
  METADATA,
  paymentIntentStatus,
  refundStatus,
  setupIntentStatus,
} from './mapping.ts';

/** Objects read per page of a list: Stripe's largest. */
const PAGE = 100;

/**
 * The order as Stripe shows it: every PaymentIntent (a DEPOSIT's payment, each hold) and
 * SetupIntent (each card saved) of the request's customers that carries the request in its
 * metadata, and each PaymentIntent's refunds, by lists (Stripe's search is eventually
 * consistent: a PaymentIntent just made may not be found, and "not found" would be believed).
 * A customer this account does not know (made on another Stripe account of the hotel's) shows
 * nothing here: that account's view holds it.
 */
export async function orderView(
  stripe: StripeClient,
  orderId: string,
  customers: readonly StripeCustomerRow[],
): Promise<ProviderOrder> {
  const transactions: ProviderTransaction[] = [];
  const seen = new Set<string>();
  // Each customer's lists at once, then each payment's refunds at once: the view is read within
  // the provider bound, however many objects the order has.
  const lists = await Promise.all(
    customers.map(async ({ customerId }) => {
      try {
        return await Promise.all([
          stripe.paymentIntents
            .list({ customer: customerId, limit: PAGE, expand: ['data.latest_charge'] })
            .autoPagingToArray({ limit: 10_000 }),
          stripe.setupIntents
            .list({ customer: customerId, limit: PAGE, expand: ['data.payment_method'] })
            .autoPagingToArray({ limit: 10_000 }),
        ]);
      } catch (err) {
        // A customer this account does not know: made on another Stripe account of the hotel's.
        if (errorCode(err) === 'resource_missing') return [[], []] as [Stripe.PaymentIntent[], Stripe.SetupIntent[]];
        throw err;
      }
    }),
  );
  const intents = lists.flatMap(([pis]) => pis).filter((pi) => pi.metadata?.[METADATA.request] === orderId);
  const setups = lists.flatMap(([, sis]) => sis).filter((si) => si.metadata?.[METADATA.request] === orderId);
  const refundsOf = await Promise.all(
    intents.map((pi) =>
      pi.status === 'succeeded'
        ? stripe.refunds.list({ payment_intent: pi.id, limit: PAGE }).autoPagingToArray({ limit: 10_000 })
        : Promise.resolve([] as Stripe.Refund[]),
    ),
  );
  intents.forEach((pi, i) => {
    if (seen.has(pi.id)) return;
    seen.add(pi.id);
    // Newest first, as the lists come: its refunds (made after it), then the payment itself.
    const [payment, ...given] = paymentView(pi, refundsOf[i] ?? []);
    transactions.push(...given, payment as ProviderTransaction);
  });
  for (const si of setups) {
    if (seen.has(si.id)) continue;
    seen.add(si.id);
    transactions.push(setupView(si));
  }
  // Oldest first: Stripe lists newest first, so within one second the list's own order, reversed.
  transactions.reverse();
  transactions.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  // Holds and refunds carry their operation's key; a capture or a cancel writes none of its own.
  return { orderId, transactions, keysKept: false };
}

function amount(minor: number, currency: string): number {
  const a = fromStripeAmount(minor, currency);
  if (a === undefined) throw new ProviderError('unavailable', `stripe: ${minor} ${currency} is no amount payreq keeps`);
  return a;
}

/** A PaymentIntent and its refunds: a payment or a hold, then each refund of it. */
function paymentView(pi: Stripe.PaymentIntent, refunds: readonly Stripe.Refund[]): ProviderTransaction[] {
  const currency = pi.currency.toUpperCase();
  const kind = pi.capture_method === 'automatic' || pi.capture_method === 'automatic_async' ? 'payment' : 'hold';
  const declined = pi.last_payment_error !== null && pi.last_payment_error !== undefined;
  let status = paymentIntentStatus(pi.status, declined);
  const captured = pi.status === 'succeeded' ? amount(pi.amount_received, currency) : 0;
  const refunded = refunds
    .filter((r) => r.status === 'succeeded')
    .reduce((sum, r) => sum + amount(r.amount, (r.currency ?? pi.currency).toUpperCase()), 0);
  if (captured > 0 && refunded >= captured) status = 'refunded';
  const charge = typeof pi.latest_charge === 'object' && pi.latest_charge !== null ? pi.latest_charge : undefined;
  const ends = kind === 'hold' ? captureBefore(charge) : undefined;
  const error = pi.last_payment_error;
  const view: ProviderTransaction = {
    id: pi.id,
    kind,
    status,
    providerStatus: pi.status,
    declineCode: error ? (error.decline_code ?? error.code ?? null) : null,
    amount: amount(pi.amount, currency),
    capturedAmount: captured,
    refundedAmount: refunded,
    currency,
    parentId: null,
    keys: pi.metadata?.[METADATA.operation] ? [pi.metadata[METADATA.operation] as string] : [],
    createdAt: new Date(pi.created * 1000),
    ...(ends ? { endsAt: ends } : {}),
  };
  return [view, ...refunds.map((r) => refundView(r, pi))];
}

function refundView(r: Stripe.Refund, pi: Stripe.PaymentIntent): ProviderTransaction {
  const currency = (r.currency ?? pi.currency).toUpperCase();
  const status = r.status ?? 'unknown';
  return {
    id: r.id,
    kind: 'refund',
    status: refundStatus(status),
    providerStatus: status,
    declineCode: r.failure_reason ?? null,
    amount: amount(r.amount, currency),
    capturedAmount: 0,
    refundedAmount: 0,
    currency,
    parentId: idOf(r.payment_intent) ?? pi.id,
    keys: r.metadata?.[METADATA.operation] ? [r.metadata[METADATA.operation] as string] : [],
    createdAt: new Date(r.created * 1000),
  };
}

/** A SetupIntent: a card saved (a verification), cancelled once its PaymentMethod was detached. */
function setupView(si: Stripe.SetupIntent): ProviderTransaction {
  const pm = si.payment_method;
  const detached = typeof pm === 'object' && pm !== null && !pm.customer;
  return {
    id: si.id,
    kind: 'verification',
    status: setupIntentStatus(si.status, detached),
    providerStatus: detached ? 'detached' : si.status,
    declineCode: si.last_setup_error?.decline_code ?? si.last_setup_error?.code ?? null,
    amount: 0,
    capturedAmount: 0,
    refundedAmount: 0,
    currency: '',
    parentId: null,
    keys: [],
    createdAt: new Date(si.created * 1000),
  };
}
