import type { CardNetwork, Currency, Language, RequestType } from '../domain/index.ts';

/**
 * The boundary with a payment provider. The service never talks to a bank in any other way,
 * and never inside a database transaction.
 *
 * refused: the bank or the provider said no, nothing moved (402);
 * technical: the provider answered that it failed, nothing moved (502);
 * unavailable: the provider was not reached (connection refused, a 503 before any work), nothing moved (502);
 * unknown: the call was sent and its answer is lost or late (a timeout, a broken connection, an
 * answer that does not parse): it may have happened. The money runner records the operation
 * as in doubt and reconcile asks the provider's view of the order (504 `outcome_unknown`).
 */
export type ProviderErrorKind = 'refused' | 'technical' | 'unavailable' | 'unknown';

/**
 * What the provider said of the transaction an operation made or moved, where its answer named
 * one: stored with the operation's ledger row, whatever the outcome.
 */
export interface ProviderAnswer {
  transactionId: string;
  /** The status as the provider wrote it (Lyra's `detailedStatus`, the sandbox's own). */
  status: string;
  /** The issuer's or the provider's reason for a refusal (Lyra: `ACQ_001/51`). */
  declineCode?: string | null;
}

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  /** The transaction the answer named (a refused hold, a refused refund), when it named one. */
  readonly answer?: ProviderAnswer;
  constructor(kind: ProviderErrorKind, message: string, answer?: ProviderAnswer) {
    super(message);
    this.kind = kind;
    this.answer = answer;
    this.name = 'ProviderError';
  }
}

/**
 * The tenant's account a transaction or card belongs to is no longer known to payreq: nothing
 * can be asked of it, nothing was sent. A hold on a card registered there can never be placed.
 */
export class AccountGone extends ProviderError {
  constructor(message: string) {
    super('unavailable', message);
    this.name = 'AccountGone';
  }
}

/** A notification whose signature does not verify, or that cannot be read: changes nothing. */
export class InvalidNotificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidNotificationError';
  }
}

/**
 * A signed, authentic notification about something payreq does not apply (its own holds,
 * refunds, cancellations, a state still in transit): acknowledged so the provider stops
 * retrying, and changes nothing.
 */
export class IgnoredNotification extends InvalidNotificationError {
  constructor(message: string) {
    super(message);
    this.name = 'IgnoredNotification';
  }
}

/** A notification naming an order payreq does not know (checked before its signature can be). */
export class UnknownNotificationOrder extends InvalidNotificationError {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownNotificationOrder';
  }
}

export interface GuestCheckoutInput {
  paymentRequestId: string;
  reference: string;
  requestType: RequestType;
  amountCents: number;
  currency: Currency;
  language: Language;
  guestEmail: string;
  /** The hotel's name, for the provider's own pages (the card page, its error page). */
  merchantName: string;
  /** Where the provider sends the guest back: the service's result page. */
  returnUrl: string;
  /**
   * Where a provider's own page sends a guest who gives up before paying: the payment link,
   * which takes another attempt. Absent: the provider has no such button.
   */
  cancelUrl?: string;
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

/**
 * The provider's own card form, drawn in the guest page by the provider's script (Lyra's
 * embedded form): the page loads `scriptUrl` with the public key, marks where the form goes with
 * the form token, and the card fields live in frames of the provider's origin, so no card
 * number ever reaches the service. The page's CSP admits `staticOrigin` for scripts, frames,
 * styles and connections, on that page only.
 */
export interface EmbeddedCardForm {
  kind: 'embedded-form';
  /** One payment attempt at the provider: what its script draws. */
  formToken: string;
  /** The browser's key for the provider's script (never a server secret). */
  publicKey: string;
  /** The provider's script that draws the form. */
  scriptUrl: string;
  /** The provider's theme: a stylesheet and its script, from the same host. */
  themeStylesheetUrl: string;
  themeScriptUrl: string;
  /** Where the script posts the guest's browser once done: the service's result page. */
  successUrl: string;
  /** The provider's tag for the guest's language, e.g. `fr-FR`. */
  languageTag: string;
}

/**
 * The provider's own payment page (Stripe Checkout): the guest's browser is sent there (a 303
 * from payreq's payment page, once the guest asks to go), pays or saves the card there, and
 * comes back to the result page. The card never reaches payreq's origin.
 */
export interface HostedPaymentPage {
  kind: 'hosted-page';
  /** The page of this one attempt, at the provider. */
  url: string;
}

export type GuestCheckout = HostedCardForm | EmbeddedCardForm | HostedPaymentPage;

/** A verified provider event about one payment request. */
export interface ProviderNotification {
  /** Unique per provider event: the same id twice is a duplicate, applied once. */
  eventId: string;
  paymentRequestId: string;
  /**
   * registered: an IMPRINT's card was saved, nothing debited; paid: a DEPOSIT was captured;
   * refused: the bank said no; error: a technical failure (the guest may retry);
   * hold_lapsed: the provider let the hold `transactionId` lapse (nothing was taken);
   * disputed: the cardholder disputed the payment `transactionId` with the bank (amountCents).
   */
  outcome: 'registered' | 'paid' | 'refused' | 'error' | 'hold_lapsed' | 'disputed';
  transactionId?: string;
  /** The transaction's short number, as MoneyAnswer's: how the provider's reports name the payment. */
  legacyTransId?: string;
  /** The provider's reusable card token (IMPRINT), stored encrypted. */
  cardToken?: string;
  /**
   * The card network's id of the registration (IMPRINT), where the provider gives one: each
   * merchant-initiated payment on the card sends it back, as the networks ask.
   */
  initialIssuerTransactionId?: string;
  maskedPan?: string;
  /**
   * The network that carried the card (IMPRINT registration), where the provider says it (Lyra's
   * effectiveBrand); without it payreq takes the brand of the card number.
   */
  cardNetwork?: CardNetwork;
  expiryMonth?: number;
  expiryYear?: number;
  /** What moved, in minor units of `currency`: checked against the request before anything is applied. */
  amountCents?: number;
  currency?: string;
  detail?: string;
  /**
   * A refusal's code as the provider gives it (Lyra: `ACQ_001/51`, its error code and the bank's
   * answer code; the sandbox: its test card's reason): payreq maps it onto its closed list of
   * decline reasons (providers/decline-reason.ts) and keeps both on the request.
   */
  declineCode?: string;
  /**
   * Set by payreq, never by a provider: why payreq itself turned the event into a failed
   * attempt (a card that lapses before its hold), for the guest page to word it.
   */
  reason?: string;
  /**
   * The tenant's account (its version) whose key verified the notification: the account that
   * took the money, an old one when the guest paid after an account switch on a form handed out
   * before it. Absent: the tenant's account as it is now (a provider without accounts).
   */
  account?: number;
}

/**
 * Every money call names the order (the payment request's uuid) and carries our idempotency
 * key for the operation: a provider that takes one does it once however often it is sent, and
 * its order view names the key, so an operation whose answer was lost is found again.
 */
export interface MoneyCall {
  orderId: string;
  reference: string;
  currency: Currency;
  idempotencyKey: string;
  /**
   * The sandbox's test clock: the moment the operation happens, where a job is run for a given
   * day (`--date`). The sandbox stamps what it makes with it; a real provider lives in real
   * time and ignores it.
   */
  at?: Date;
}

/** A call on an existing provider transaction (the hold, the payment, the verification). */
export interface TransactionCall extends MoneyCall {
  transactionId: string;
}

export interface SilentHoldCall extends MoneyCall {
  cardToken: string;
  amountCents: number;
  /** The registration's network id, when the provider gave one (see ProviderNotification). */
  initialIssuerTransactionId?: string;
  /**
   * Why this merchant-initiated hold: a renewal of a hold about to lapse is a reauthorisation,
   * told wherever the provider has a field for it (the sandbox records it; Lyra's REST API
   * documents none: the chain to the registration is its initialIssuerTransactionIdentifier).
   */
  reason?: 'reauthorisation';
}

/** The provider's transaction a money call created (hold, refund) or moved (capture, release, void). */
export interface MoneyAnswer {
  transactionId: string;
  /** Its status as the provider wrote it, where the answer said. */
  status?: string;
  /**
   * The provider's short number of that transaction, where the answer gave one: Lyra's
   * legacyTransId (6 digits, unique in a shop for a day), the TRANSACTION_ID its bank
   * reconciliation report names the operation by. Kept with the ledger row (docs/payouts.md).
   */
  legacyTransId?: string;
  /**
   * A hold's end as the provider states it (Stripe's `capture_before`), where it does: it
   * replaces the card network's table for this hold; the hotel's hold length may only shorten it.
   */
  holdEndsAt?: Date;
}

export type ProviderTransactionKind = 'verification' | 'payment' | 'hold' | 'refund';
export type ProviderTransactionStatus =
  | 'accepted'
  | 'authorised'
  | 'captured'
  | 'cancelled'
  | 'refused'
  | 'error'
  | 'refunded'
  | 'in_flight'
  | 'unknown';

/** One transaction of an order as the provider sees it; amounts in minor units. */
export interface ProviderTransaction {
  id: string;
  kind: ProviderTransactionKind;
  /**
   * accepted: a verification that registered a card; authorised: a hold still open; captured:
   * money taken (on a payment, or what was captured of a hold); cancelled: a hold released or
   * lapsed, a verification voided, a refund cancelled; refunded: of a payment, all of it given
   * back; of a refund, the money went back; refused: the bank said no; error: a technical failure,
   * nothing moved; in_flight: the provider has not decided yet; unknown: a status the
   * adapter's table does not know (only the verdicts that read this transaction wait).
   */
  status: ProviderTransactionStatus;
  /** The status as the provider wrote it (Lyra's `detailedStatus`). */
  providerStatus: string;
  /** The reason of a refusal, as the provider gave it (Lyra: `ACQ_001/51`); null otherwise. */
  declineCode: string | null;
  amount: number;
  /** Of a payment or a hold: how much was taken. */
  capturedAmount: number;
  /** Of what was taken: how much was given back (each refund is also its own transaction). */
  refundedAmount: number;
  currency: string;
  /** A refund's payment or hold. */
  parentId: string | null;
  /** Our idempotency keys of the operations that created or moved it, where the provider keeps them. */
  keys: string[];
  createdAt: Date;
  /** A hold's end as the provider states it, where it does (see MoneyAnswer.holdEndsAt). */
  endsAt?: Date;
  /** The tenant's account (its version) whose view showed it, when an order is read across accounts. */
  account?: number | null;
}

/** The provider's view of an order (the payment request): what reconcile trusts. */
export interface ProviderOrder {
  orderId: string;
  transactions: ProviderTransaction[];
  /**
   * The provider records our key with every operation it performs: an operation whose key it
   * does not show did not happen. Otherwise what happened is judged from the transactions' states.
   */
  keysKept: boolean;
}

export interface PaymentProvider {
  readonly name: string;
  /**
   * The guest pays on the provider's own page (a HostedPaymentPage): the payment page shows
   * the hotel and a button, and startGuestPayment is asked only when the guest presses it, so a
   * page view (a link preview, a reload) opens no attempt at the provider. `name`: the provider
   * as the guest reads it; `origins`: where its pages live (the button's redirect goes there,
   * which the page's form-action admits).
   */
  readonly hostedCheckout?: { readonly name: string; readonly origins: readonly string[] };
  /** Prepares the guest's payment: IMPRINT registers the card (no debit), DEPOSIT pays now. */
  startGuestPayment(input: GuestCheckoutInput): Promise<GuestCheckout>;
  /**
   * The guest came back from the provider's page to the result page with what the provider
   * put in the address (Stripe: `session_id`): the provider is asked, with the account's key,
   * what became of that attempt of `orderId`. The same outcome as its notification (the same
   * event id or transaction), so whichever is applied first wins and the other changes
   * nothing. Undefined: nothing to apply yet. Throws InvalidNotificationError for an attempt
   * that is not this order's.
   */
  confirmGuestReturn?(
    orderId: string,
    query: Readonly<Record<string, string>>,
  ): Promise<ProviderNotification | undefined>;
  /** Verifies and reads a notification; throws InvalidNotificationError, never trusts an unsigned one. */
  parseNotification(rawBody: string, headers: Record<string, string | string[] | undefined>): ProviderNotification;
  /**
   * The guest's browser posted back to the result page (Lyra's kr-post-url-success): verified
   * and read, never applied (the notification is what changes a status). Undefined when the
   * provider's return carries nothing signed (the sandbox's is a plain redirect); throws
   * InvalidNotificationError when it does not verify.
   */
  readBrowserReturn(rawBody: string): ProviderNotification | undefined;
  /** A hold with the stored token and manual validation; answers the hold's transaction. */
  silentHold(call: SilentHoldCall): Promise<MoneyAnswer>;
  /** Debits `amountCents` of a held amount (full or partial); the rest of the hold is freed. */
  capture(call: TransactionCall & { amountCents: number }): Promise<MoneyAnswer>;
  /** Frees a held amount without debiting. */
  release(call: TransactionCall): Promise<MoneyAnswer>;
  /** Gives back `amountCents` of what a payment or hold took; answers the refund's own transaction. */
  refund(call: TransactionCall & { amountCents: number }): Promise<MoneyAnswer>;
  /** Cancels a verification (the registered card may no longer be used) or an open hold. */
  void(call: TransactionCall): Promise<MoneyAnswer>;
  /** The provider's view of the order: every transaction, its state and amounts. */
  getOrder(orderId: string): Promise<ProviderOrder>;
}
