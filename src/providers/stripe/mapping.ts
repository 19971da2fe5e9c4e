import type Stripe from 'stripe';
import type { CardNetwork } from '../../domain/index.ts';
import type { ProviderTransactionStatus } from '../payment-provider.ts';

/**
 * What a PaymentIntent's `status` means for payreq (Stripe, "How PaymentIntents work": the
 * lifecycle). A status missing here is 'unknown': only the verdicts that read it wait.
 * - requires_capture: authorised, held until captured or cancelled (a hold);
 * - succeeded: the money was taken (a payment, or a captured hold);
 * - canceled: nothing taken: a hold released by payreq, or lapsed at `capture_before`;
 * - requires_payment_method: nothing taken; with a `last_payment_error` the bank declined
 *   (refused), without one nobody tried yet (a Checkout payment the guest never submitted);
 * - requires_action, requires_confirmation, processing: Stripe or the cardholder has not
 *   decided yet: in flight.
 */
const PAYMENT_INTENT_STATUSES: Readonly<Record<string, ProviderTransactionStatus>> = {
  requires_capture: 'authorised',
  succeeded: 'captured',
  canceled: 'cancelled',
  requires_payment_method: 'error',
  requires_action: 'in_flight',
  requires_confirmation: 'in_flight',
  processing: 'in_flight',
};

export function paymentIntentStatus(status: string, declined: boolean): ProviderTransactionStatus {
  const mapped = Object.hasOwn(PAYMENT_INTENT_STATUSES, status) ? PAYMENT_INTENT_STATUSES[status] : undefined;
  if (!mapped) return 'unknown';
  return mapped === 'error' && declined ? 'refused' : mapped;
}

/**
 * A SetupIntent (an IMPRINT's card saved on Checkout, nothing debited): succeeded is a card
 * registered (cancelled once payreq detached its payment method); anything else registered
 * nothing and moves no money: the guest may still finish or have left (Checkout expires its
 * session after a day and cancels the intent).
 */
export function setupIntentStatus(status: string, detached: boolean): ProviderTransactionStatus {
  if (status === 'succeeded') return detached ? 'cancelled' : 'accepted';
  if (status === 'canceled') return 'cancelled';
  if (status === 'processing') return 'in_flight';
  if (status === 'requires_payment_method' || status === 'requires_action' || status === 'requires_confirmation') {
    return 'error';
  }
  return 'unknown';
}

/**
 * A Refund's `status` (API reference, "The Refund object"): pending and requires_action are
 * not decided yet; succeeded gave the money back; failed and canceled gave nothing.
 */
const REFUND_STATUSES: Readonly<Record<string, ProviderTransactionStatus>> = {
  succeeded: 'refunded',
  pending: 'in_flight',
  requires_action: 'in_flight',
  failed: 'refused',
  canceled: 'cancelled',
};

export function refundStatus(status: string): ProviderTransactionStatus {
  return Object.hasOwn(REFUND_STATUSES, status) ? (REFUND_STATUSES[status] as ProviderTransactionStatus) : 'unknown';
}

/** Stripe's card `brand` for each network whose hold rule payreq applies. */
const BRANDS: Readonly<Record<string, CardNetwork>> = {
  visa: 'visa',
  mastercard: 'mastercard',
  amex: 'amex',
  cartes_bancaires: 'cb',
};

export function cardNetworkOfBrand(brand: string | null | undefined): CardNetwork {
  if (!brand) return 'other';
  return Object.hasOwn(BRANDS, brand) ? (BRANDS[brand] as CardNetwork) : 'other';
}

/**
 * The card as payreq shows it: Stripe gives the last four digits only (the BIN is "for
 * internal use only" in its API), so the first twelve are masked.
 */
export function maskedPanOf(last4: string | null | undefined): string | undefined {
  return last4 && /^\d{4}$/.test(last4) ? `XXXXXXXXXXXX${last4}` : undefined;
}

/**
 * Stripe counts amounts in the currency's smallest unit ("Zero-decimal currencies"); payreq
 * counts hundredths, and its currencies (EUR, CHF, USD) all have two decimals: the same number.
 * Any other currency is refused rather than guessed.
 */
const TWO_DECIMALS: ReadonlySet<string> = new Set(['EUR', 'CHF', 'USD']);

export function toStripeAmount(hundredths: number, currency: string): number | undefined {
  return TWO_DECIMALS.has(currency.toUpperCase()) && Number.isSafeInteger(hundredths) ? hundredths : undefined;
}

export function fromStripeAmount(minor: number, currency: string): number | undefined {
  return TWO_DECIMALS.has(currency.toUpperCase()) && Number.isSafeInteger(minor) ? minor : undefined;
}

/** The Checkout page's language for payreq's (its `locale`). */
export const CHECKOUT_LOCALES = { fr: 'fr', en: 'en', de: 'de' } as const;

/** The metadata every object payreq creates carries: the request, and for a money move the operation's key. */
export const METADATA = {
  request: 'payreq_request',
  operation: 'payreq_operation',
  reference: 'payreq_reference',
} as const;

/** A hold's end: its charge's `capture_before` (Stripe, "Place a hold on a payment method"). */
export function captureBefore(charge: Stripe.Charge | undefined): Date | undefined {
  const at = charge?.payment_method_details?.card?.capture_before;
  return typeof at === 'number' ? new Date(at * 1000) : undefined;
}
