/**
 * The boundary with a payment provider. The service never talks to a bank in any other way,
 * and never inside a database transaction.
 */
export interface ProviderPaymentRef {
  /** The request's uuid: the provider's order id. */
  paymentRequestId: string;
  reference: string;
  currency: string;
}

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

export interface PaymentProvider {
  readonly name: string;
  /** Debits `amountCents` of a held amount (full or partial); the rest of the hold is freed. */
  capture(ref: ProviderPaymentRef, amountCents: number): Promise<void>;
  /** Frees a held amount without debiting. */
  release(ref: ProviderPaymentRef): Promise<void>;
  /** Gives back `amountCents` of a captured payment. */
  refund(ref: ProviderPaymentRef, amountCents: number): Promise<void>;
}
