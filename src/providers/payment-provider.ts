import type { Currency, Language, RequestType } from '../domain/index.js';

/**
 * The boundary with a payment provider. The service never talks to a bank in any other way,
 * and never inside a database transaction.
 */
export type ProviderErrorKind = 'refused' | 'technical' | 'unavailable';

/** refused: the bank said no; technical: the provider failed; unavailable: no answer (timeout, 5xx). */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** A notification whose signature does not verify, or that cannot be read: changes nothing. */
export class InvalidNotificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidNotificationError';
  }
}

/** What a money command needs to name the provider's transaction. */
export interface ProviderPaymentRef {
  /** The request's uuid: the provider's order id. */
  paymentRequestId: string;
  reference: string;
  currency: string;
  /** The provider's transaction (the hold, or the deposit payment); absent before any payment. */
  transactionId?: string | null;
}

export interface GuestCheckoutInput {
  paymentRequestId: string;
  reference: string;
  requestType: RequestType;
  amountCents: number;
  currency: Currency;
  language: Language;
  guestEmail: string;
  /** Where the provider sends the guest back: the service's result page. */
  returnUrl: string;
  /** Where the provider posts its notification: `{PUBLIC_BASE_URL}/ipn/<provider>/`. */
  notifyUrl: string;
}

/**
 * How the guest page presents the payment: a plain HTML form posting the card fields
 * (`card_number`, `exp_month`, `exp_year`, `cvv`) and these hidden fields to `action`,
 * a page of the provider, never the service's own API.
 */
export interface HostedCardForm {
  kind: 'card-form';
  action: string;
  hiddenFields: Record<string, string>;
}

export type GuestCheckout = HostedCardForm;

/** A verified provider event about one payment request. */
export interface ProviderNotification {
  /** Unique per provider event: the same id twice is a duplicate, applied once. */
  eventId: string;
  paymentRequestId: string;
  /**
   * registered: an IMPRINT's card was saved, nothing debited; paid: a DEPOSIT was captured;
   * refused: the bank said no; error: a technical failure (the guest may retry).
   */
  outcome: 'registered' | 'paid' | 'refused' | 'error';
  transactionId?: string;
  /** The provider's reusable card token (IMPRINT), stored encrypted. */
  cardToken?: string;
  maskedPan?: string;
  expiryMonth?: number;
  expiryYear?: number;
  amountCents?: number;
  detail?: string;
}

export interface SilentHoldInput {
  paymentRequestId: string;
  reference: string;
  cardToken: string;
  amountCents: number;
  currency: Currency;
}

/** The provider's own view of a transaction, to settle what a lost answer left unknown. */
export interface ProviderTransactionState {
  transactionId: string;
  status: 'registered' | 'authorised' | 'captured' | 'cancelled' | 'refused' | 'error' | 'refunded';
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
}

export interface PaymentProvider {
  readonly name: string;
  /** Prepares the guest's payment: IMPRINT registers the card (no debit), DEPOSIT pays now. */
  startGuestPayment(input: GuestCheckoutInput): Promise<GuestCheckout>;
  /** Verifies and reads a notification; throws InvalidNotificationError, never trusts an unsigned one. */
  parseNotification(rawBody: string, headers: Record<string, string | string[] | undefined>): ProviderNotification;
  /** A hold with the stored token and manual validation; resolves with the hold's transaction id. */
  silentHold(input: SilentHoldInput): Promise<{ transactionId: string }>;
  /** Debits `amountCents` of a held amount (full or partial); the rest of the hold is freed. */
  capture(ref: ProviderPaymentRef, amountCents: number): Promise<void>;
  /** Frees a held amount without debiting. */
  release(ref: ProviderPaymentRef): Promise<void>;
  /** Gives back `amountCents` of a captured payment. */
  refund(ref: ProviderPaymentRef, amountCents: number): Promise<void>;
  /** The state of `ref.transactionId` at the provider, or undefined when it knows none. */
  getPayment(ref: ProviderPaymentRef): Promise<ProviderTransactionState | undefined>;
}
