import type { ListeningApp } from '../../helpers/listening-app.ts';
import type { TenantWithKey } from '../../helpers/test-app.ts';

/**
 * The guest's card, as the model names it: each provider maps it to one of its test cards.
 * blocked: it registers, then every hold or charge on it is refused (a failed guarantee).
 */
export type Card = 'good' | 'refused' | 'error' | 'blocked';

/**
 * What happens to the money calls of one step. lost: done, the answer lost; late: done, the
 * answer after the timeout (or, where the provider's own timeout comes first, slow); down: not
 * done, no answer; odd: done, the answer showing a state the adapter cannot settle; unknown:
 * done, and the provider then shows its transaction in a status no table knows, until it
 * decides (the world's `decide`).
 */
export type Fault = 'lost' | 'late' | 'down' | 'odd' | 'unknown';

/** The provider calls a model step can fault. */
export type MoneyCall = 'capture' | 'release' | 'refund' | 'hold';

/** A request the model made: what the API answered at its creation. */
export interface ModelRequest {
  uuid: string;
  payment_link: string;
}

/** What the provider itself holds for an order, over every account that holds its transactions. */
export interface ProviderView {
  /** Captured less refunded, minor units. */
  net: number;
  /** The holds open (authorised, waiting for capture or release): each one's id and amount. */
  openHolds: { id: string; amount: number }[];
}

/**
 * One payment provider as the books model drives it: the guest's side (card forms, the
 * notifications), faults on the money calls, and the provider's own truth, read from the
 * provider's side and never through payreq's books.
 */
export interface ProviderWorld<Form> {
  readonly name: string;
  readonly t: ListeningApp;
  /** A hotel of its own for one run of the model (its account, for a provider that has them). */
  newHotel(): Promise<TenantWithKey>;
  /** The card form a guest opening the payment link gets now; undefined when there is none. */
  openForm(hotel: TenantWithKey, request: ModelRequest): Promise<Form | undefined>;
  /** The guest submits `form` with `card`; the provider notifies payreq as it does. */
  pay(form: Form, card: Card): Promise<void>;
  /** One of the notifications sent so far, delivered again. */
  replay(nth: number): Promise<void>;
  /** The next `call` of this step meets `fault`. */
  arm(call: MoneyCall, fault: Fault): void;
  /** Faults not met are forgotten, late answers let through; resolves once no call is under way. */
  disarm(): Promise<void>;
  /** Resolves once no provider call is under way. */
  quiet(): Promise<void>;
  view(orderId: string): Promise<ProviderView>;
  /** The hotel moves to its next account (TEST to PRODUCTION at go-live, then another shop). */
  switchAccount?(hotel: TenantWithKey): Promise<void>;
  /** The provider's nightly remittance: what was authorised goes to the bank. */
  remit?(): void;
  /**
   * A hold the provider completes after payreq gave up on it: a second hold on the order's
   * registered card, under a key no ledger row has. False: the order has no card to hold.
   */
  landLateHold(orderId: string): Promise<boolean>;
  /**
   * The order's last registered card goes bad: the bank refuses every later hold on it for good
   * (reported stolen). False: the order has no card.
   */
  cardGoesBad(orderId: string): Promise<boolean>;
  /** The provider decides whatever it showed in a status no table knows (the `unknown` fault). */
  decide?(): void;
  close(): Promise<void>;
}
