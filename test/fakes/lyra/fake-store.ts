import { randomInt } from 'node:crypto';
import { type FakeClock, fakeClock } from './fake-clock.ts';
import { type FakeTransaction, lyraId } from './wire-shapes.ts';

/**
 * Lyra's sandbox test cards (protocol notes section 6): 0055 accepted, 0113 refused with
 * ACQ_001 / 51 (insufficient funds), 1002 saved fine but refused on later payments. The
 * ACQ_999 card is INVENTED: the notes name ACQ_999 as a technical error but no test card for
 * it; here it saves fine and fails every payment.
 */
export const LYRA_CARDS = {
  accepted: '4970100000000055',
  refused: '4970100000000113',
  refusedLater: '4970101000001002',
  technicalError: '4970100000000999',
} as const;

/**
 * Bank answer codes (a refusal's `detailedErrorCode`, next to `errorCode: 'ACQ_001'`; Lyra's
 * errors_acq page: "the code of acquirer's authorization rejection is returned in
 * detailedErrorCode ... without any modifications", its example a stolen VISA card: 43). Labels
 * from Lyra's CB `vads_auth_result` tables (Sogecommerce and OSB copies). Lyra's "anticipated
 * authorizations" page lists the CB codes it never retries ("fraud-related": 03, 04, 05, 07,
 * 12-15, 31, 33, 34, 41, 43, 54, 56, 57, 59, 63, 76, 80-82...); 51 is not among them.
 */
export const DECLINE_CODES = {
  /** 51: insufficient balance or exceeded credit limit (retried by Lyra's anticipated authorisations). */
  insufficientFunds: '51',
  /** 05: do not honor (never retried). */
  doNotHonor: '05',
  /** 41: lost card (never retried). */
  lostCard: '41',
  /** 43: stolen card (never retried). */
  stolenCard: '43',
} as const;

/**
 * How long a manual-validation hold stays capturable: "in the CB network, an accepted
 * authorization request is valid for 7 days for Visa, Mastercard, Visa Electron, e-Carte Bleue
 * and Vpay cards; 30 days for Maestro cards" (Lyra, form-payment/standard-payment/
 * authorization-request.html). The fake's cards are CB/Visa: 7 days. Counted from the
 * transaction's creationDate to the millisecond: INFERRED (whether Lyra expires at a daily run
 * is not documented). Past it the transaction is EXPIRED, which "is final" (status reference).
 */
export const HOLD_VALIDITY_MS = 7 * 24 * 3600 * 1000;

/** A service's refusal to act: answered as an ERROR envelope. */
export class FakeServiceError extends Error {
  readonly errorCode: string;
  constructor(errorCode: string, message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

/**
 * Codes the notes record: PSP_010 transaction not found (also Order/Get on an order with no
 * transaction), INT_902 input validation, PSP_030 token invalid/unknown. PSP_999 for an
 * operation refused in the transaction's current state is INVENTED: Lyra's PSP error list
 * (docs.lyra.com/en/rest/V4.0/api/errors_psp.html) names PSP_011 "incorrect transaction
 * status" for it; the fake still answers PSP_999 so that what its users met does not change.
 */
export const notFound = () => new FakeServiceError('PSP_010', 'transaction not found');
export const badInput = (what: string) =>
  new FakeServiceError('INT_902', `web-service input data validation error: ${what}`);
const badState = (t: FakeTransaction, op: string) =>
  new FakeServiceError('PSP_999', `fake (invented code): cannot ${op} a ${t.detailedStatus} transaction`);

interface Card {
  pan: string;
  /** The bank's code when it refuses this card's payments (`refuseCardFromNowOn`). */
  refusalCode?: string;
  cancelledAt: string | null;
  /** The registration's network id: a merchant-initiated payment on the card should send it back. */
  networkTransactionId: string;
}

/** 16 digits, as the recorded `initialIssuerTransactionIdentifier` (4575676657929351). */
const networkId = () => `${randomInt(1e7, 1e8)}${randomInt(1e7, 1e8)}`;

export interface FormRequest {
  kind: 'payment' | 'register';
  orderId: string;
  amount: number;
  currency: string;
  metadata: Record<string, string> | null;
  customer: Record<string, unknown>;
  ipnTargetUrl: string | null;
}

/**
 * Orders, transactions, saved cards and issued form tokens, in memory. `clock`: Lyra's time,
 * shared by the shops of one fake (real time until a test moves it).
 */
export function fakeStore(clock: FakeClock = fakeClock()) {
  const transactions = new Map<string, FakeTransaction>();
  const cards = new Map<string, Card>();
  const forms = new Map<string, FormRequest>();
  /** Authorised DEBITs whose next remittance fails (`failRemittanceOf`). */
  const remittanceFails = new Set<string>();
  /** Holds whose next Validate waits for an authorisation, and how the bank will answer it. */
  const validationWaits = new Map<string, { outcome: 'AUTHORISED' | 'REFUSED'; code: string }>();
  /** Validated holds waiting for their authorisation at the next batch. */
  const awaitingAuthorisation = new Map<string, { outcome: 'AUTHORISED' | 'REFUSED'; code: string }>();
  /** Captured payments whose next refund the bank refuses, with its code. */
  const refundRefusals = new Map<string, string>();

  /** Transaction numbers given out: six digits, never twice in one fake (Lyra: once a shop and day). */
  const numbers = new Set<string>();
  const transactionNumber = (): string => {
    for (;;) {
      const n = String(randomInt(0, 900_000)).padStart(6, '0');
      if (!numbers.has(n)) {
        numbers.add(n);
        return n;
      }
    }
  };
  /** Transactions' dates: Lyra's clock. */
  const now = () => clock.now().toISOString();
  /**
   * A hold past its validity is EXPIRED, evaluated from the clock whenever the store is read,
   * so that a test only moves the clock.
   */
  const expireHolds = () => {
    const at = clock.now().getTime();
    for (const t of transactions.values()) {
      if (t.operationType !== 'DEBIT' || t.detailedStatus !== 'AUTHORISED_TO_VALIDATE') continue;
      if (at - Date.parse(t.creationDate) >= HOLD_VALIDITY_MS) t.detailedStatus = 'EXPIRED';
    }
  };
  const create = (
    t: Omit<FakeTransaction, 'uuid' | 'creationDate' | 'comments' | 'networkTransactionId' | 'legacyTransId'>,
  ): FakeTransaction => {
    const created: FakeTransaction = {
      ...t,
      uuid: lyraId(),
      creationDate: now(),
      comments: [],
      networkTransactionId: networkId(),
      legacyTransId: transactionNumber(),
    };
    transactions.set(created.uuid, created);
    return created;
  };
  const get = (uuid: unknown): FakeTransaction => {
    expireHolds();
    const t = typeof uuid === 'string' ? transactions.get(uuid) : undefined;
    if (!t) throw notFound();
    return t;
  };
  /** A test control's transaction: a plain Error for a uuid the store does not hold. */
  const known = (uuid: string): FakeTransaction => {
    expireHolds();
    const t = transactions.get(uuid);
    if (!t) throw new Error(`fake: no transaction ${uuid}`);
    return t;
  };
  const remember = (t: FakeTransaction, comment: unknown) => {
    if (typeof comment === 'string') t.comments.push(comment);
  };
  /**
   * A card's authorisation as the test cards decide it: a registration, or a payment. A refusal
   * is ACQ_001 with the bank's code: 51 for the recorded refused card (joanie
   * `payment_refused.json`), `refusalCode` for a card refused from now on.
   */
  const decide = (pan: string, registration = false, refusalCode?: string) =>
    pan === LYRA_CARDS.refused || (pan === LYRA_CARDS.refusedLater && !registration)
      ? {
          detailedStatus: 'REFUSED',
          errorCode: 'ACQ_001',
          detailedErrorCode: pan === LYRA_CARDS.refused ? DECLINE_CODES.insufficientFunds : (refusalCode ?? '51'),
        }
      : pan === LYRA_CARDS.technicalError && !registration
        ? // INVENTED: the detailedStatus of an ACQ_999 transaction is not recorded in the notes.
          { detailedStatus: 'REFUSED', errorCode: 'ACQ_999', detailedErrorCode: null }
        : undefined;

  /** The refused CREDIT of a refund the bank turned down (`refuseNextRefund`). */
  const refusedRefund = (t: FakeTransaction, value: number, code: string): FakeTransaction =>
    create({
      orderId: t.orderId,
      amount: value,
      currency: t.currency,
      operationType: 'CREDIT',
      detailedStatus: 'REFUSED',
      manualValidation: false,
      paymentMethodToken: t.paymentMethodToken,
      pan: t.pan,
      metadata: null,
      parentUuid: t.uuid,
      creationContext: 'REFUND',
      captureDate: null,
      refundAmount: null,
      errorCode: 'ACQ_001',
      detailedErrorCode: code,
    });

  /** Not yet at the bank: may still be lowered or cancelled (Transaction/Cancel's documented statuses). */
  const open = (t: FakeTransaction) =>
    t.detailedStatus === 'AUTHORISED_TO_VALIDATE' ||
    t.detailedStatus === 'AUTHORISED' ||
    t.detailedStatus === 'WAITING_AUTHORISATION';

  return {
    /** Every transaction by uuid; holds past their validity read as EXPIRED here too. */
    get transactions(): Map<string, FakeTransaction> {
      expireHolds();
      return transactions;
    },

    /** Lyra's clock, as this store reads it. */
    clock,

    issueForm(form: FormRequest): string {
      const token = `${lyraId()}${lyraId()}`;
      forms.set(token, form);
      return token;
    },

    form(token: string): FormRequest | undefined {
      return forms.get(token);
    },

    /**
     * The guest submits Lyra's card form: REGISTER saves the card with a VERIFICATION of 0
     * (ACCEPTED, token set); PAYMENT authorises a DEBIT captured automatically (AUTHORISED).
     */
    submitForm(token: string, pan: string): FakeTransaction {
      const form = forms.get(token);
      if (!form) throw new FakeServiceError('PSP_010', 'fake: unknown form token');
      forms.delete(token);
      const refusal = decide(pan, form.kind === 'register');
      const cardToken = form.kind === 'register' && !refusal ? lyraId() : null;
      const t = create({
        orderId: form.orderId,
        amount: form.kind === 'register' ? 0 : form.amount,
        currency: form.currency,
        operationType: form.kind === 'register' ? 'VERIFICATION' : 'DEBIT',
        detailedStatus: refusal?.detailedStatus ?? (form.kind === 'register' ? 'ACCEPTED' : 'AUTHORISED'),
        manualValidation: false,
        paymentMethodToken: cardToken,
        pan,
        metadata: form.metadata,
        parentUuid: null,
        creationContext: form.kind === 'register' ? 'VERIFICATION' : 'CHARGE',
        captureDate: null,
        refundAmount: null,
        errorCode: refusal?.errorCode ?? null,
        detailedErrorCode: refusal?.detailedErrorCode ?? null,
      });
      if (cardToken) cards.set(cardToken, { pan, cancelledAt: null, networkTransactionId: t.networkTransactionId });
      return t;
    },

    /**
     * INVENTED test control: the shop captures every payment automatically, whatever the call's
     * `manualValidation` says (a shop whose validation mode is forced to automatic in its back
     * office, as Lyra lets a merchant set the default; vads-validation-mode).
     */
    capturesAutomatically: false,

    /** SILENT CreatePayment with a saved card: authorised now, held for validation when asked. */
    silentPayment(p: {
      orderId: string;
      amount: number;
      currency: string;
      token: string;
      manualValidation: boolean;
      metadata: Record<string, string> | null;
    }): FakeTransaction {
      const card = cards.get(p.token);
      if (!card || card.cancelledAt) throw new FakeServiceError('PSP_030', 'token invalid or unknown');
      const refusal = decide(card.pan, false, card.refusalCode);
      const manual = p.manualValidation && !this.capturesAutomatically;
      return create({
        orderId: p.orderId,
        amount: p.amount,
        currency: p.currency,
        operationType: 'DEBIT',
        detailedStatus: refusal?.detailedStatus ?? (manual ? 'AUTHORISED_TO_VALIDATE' : 'AUTHORISED'),
        manualValidation: manual,
        paymentMethodToken: p.token,
        pan: card.pan,
        metadata: p.metadata,
        parentUuid: null,
        creationContext: 'CHARGE',
        captureDate: null,
        refundAmount: null,
        errorCode: refusal?.errorCode ?? null,
        detailedErrorCode: refusal?.detailedErrorCode ?? null,
      });
    },

    get,

    order(orderId: string): FakeTransaction[] {
      expireHolds();
      return [...transactions.values()].filter((t) => t.orderId === orderId);
    },

    /** Transaction/Update: lowers a transaction not yet validated nor sent to the bank. */
    update(uuid: unknown, amount: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      // WAITING_AUTHORISATION: PrestaShop's and Magento's refund code accept it as an Update answer.
      if (!open(t)) throw badState(t, 'update');
      if (!Number.isSafeInteger(amount) || (amount as number) <= 0 || (amount as number) > t.amount) {
        throw badInput('cardUpdate.amount');
      }
      t.amount = amount as number;
      remember(t, comment);
      return t;
    },

    /**
     * Transaction/Validate: a held transaction becomes AUTHORISED, captured at the next batch;
     * or, after `validateWaits`, WAITING_AUTHORISATION (Magento's validate accepts both answers),
     * authorised or refused at the next batch.
     */
    validate(uuid: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (t.detailedStatus !== 'AUTHORISED_TO_VALIDATE') throw badState(t, 'validate');
      const wait = validationWaits.get(t.uuid);
      if (wait) {
        validationWaits.delete(t.uuid);
        awaitingAuthorisation.set(t.uuid, wait);
        t.detailedStatus = 'WAITING_AUTHORISATION';
      } else {
        t.detailedStatus = 'AUTHORISED';
      }
      remember(t, comment);
      return t;
    },

    /**
     * Transaction/Cancel: only before the bank has it (the playground's required statuses:
     * AUTHORISED_TO_VALIDATE, WAITING_AUTHORISATION(_TO_VALIDATE), AUTHORISED).
     */
    cancel(uuid: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (!open(t)) throw badState(t, 'cancel');
      t.detailedStatus = 'CANCELLED';
      awaitingAuthorisation.delete(t.uuid);
      remember(t, comment);
      return t;
    },

    /**
     * Transaction/CancelOrRefund. Not yet captured: cancelled whole (same uuid, notes
     * `cancel_transaction_payment.json`), or lowered for a part (INFERRED: the notes do not
     * record a partial cancellation). Captured: a new CREDIT transaction whose parent is the
     * payment (notes `refund_transaction_payment.json`), and the parent's refundAmount grows;
     * after `refuseNextRefund`, a REFUSED CREDIT and the parent's refundAmount unchanged.
     */
    cancelOrRefund(uuid: unknown, amount: unknown, mode: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (!Number.isSafeInteger(amount) || (amount as number) <= 0) throw badInput('amount');
      const value = amount as number;
      if (t.operationType !== 'DEBIT') throw badState(t, 'refund');
      if (open(t)) {
        if (mode === 'REFUND_ONLY') throw badState(t, 'refund (not captured yet)');
        if (value > t.amount) throw badInput('amount');
        if (value === t.amount) {
          t.detailedStatus = 'CANCELLED';
          awaitingAuthorisation.delete(t.uuid);
        } else t.amount -= value;
        remember(t, comment);
        return t;
      }
      if (t.detailedStatus !== 'CAPTURED' || mode === 'CANCELLATION_ONLY') throw badState(t, 'refund');
      if (value > t.amount - (t.refundAmount ?? 0)) throw badInput('amount');
      const refusal = refundRefusals.get(t.uuid);
      if (refusal !== undefined) {
        refundRefusals.delete(t.uuid);
        const refused = refusedRefund(t, value, refusal);
        remember(refused, comment);
        return refused;
      }
      t.refundAmount = (t.refundAmount ?? 0) + value;
      const credit = create({
        orderId: t.orderId,
        amount: value,
        currency: t.currency,
        operationType: 'CREDIT',
        detailedStatus: 'AUTHORISED',
        manualValidation: false,
        paymentMethodToken: t.paymentMethodToken,
        pan: t.pan,
        metadata: null,
        parentUuid: t.uuid,
        creationContext: 'REFUND',
        captureDate: null,
        refundAmount: null,
        errorCode: null,
        detailedErrorCode: null,
      });
      remember(credit, comment);
      return credit;
    },

    /**
     * The nightly remittance: what is AUTHORISED goes to the bank (CAPTURED, or CAPTURE_FAILED
     * after `failRemittanceOf`: "capture failed, contact the technical support",
     * vads-trans-status). A validated hold WAITING_AUTHORISATION gets its authorisation first:
     * AUTHORISED then remitted, or REFUSED with ACQ_001 (the batch authorisation's outcomes,
     * Lyra's deferred-payment notifications page; both in one batch is INFERRED). Every status
     * shown by a stored fault is settled back to the true one.
     */
    runBatch(): void {
      expireHolds();
      for (const t of transactions.values()) {
        delete t.shownStatus;
        if (t.operationType !== 'DEBIT') continue;
        if (t.detailedStatus === 'WAITING_AUTHORISATION') {
          // One set raw (`setStatus`) without `validateWaits`: authorised (INFERRED).
          const wait = awaitingAuthorisation.get(t.uuid) ?? { outcome: 'AUTHORISED', code: '' };
          awaitingAuthorisation.delete(t.uuid);
          if (wait.outcome === 'REFUSED') {
            t.detailedStatus = 'REFUSED';
            t.errorCode = 'ACQ_001';
            t.detailedErrorCode = wait.code;
            continue;
          }
          t.detailedStatus = 'AUTHORISED';
        }
        if (t.detailedStatus !== 'AUTHORISED') continue;
        if (remittanceFails.delete(t.uuid)) {
          t.detailedStatus = 'CAPTURE_FAILED';
          continue;
        }
        t.detailedStatus = 'CAPTURED';
        t.captureDate = now();
      }
    },

    /**
     * Test control (Lyra has no such service): this DEBIT's next remittance fails, so at the
     * batch where it is AUTHORISED it becomes CAPTURE_FAILED instead of CAPTURED.
     */
    failRemittanceOf(uuid: string): void {
      remittanceFails.add(known(uuid).uuid);
    },

    /**
     * Test control: the next Validate of this hold answers and stores WAITING_AUTHORISATION
     * (simple status RUNNING); at the next batch it is CAPTURED (`AUTHORISED`) or REFUSED with
     * ACQ_001 and `detailedErrorCode` (default 51, insufficient funds: the code Lyra's
     * anticipated authorisations retry).
     */
    validateWaits(
      uuid: string,
      outcome: 'AUTHORISED' | 'REFUSED',
      detailedErrorCode: string = DECLINE_CODES.insufficientFunds,
    ): void {
      validationWaits.set(known(uuid).uuid, { outcome, code: detailedErrorCode });
    },

    /**
     * Test control: the next CancelOrRefund that refunds this CAPTURED payment creates a CREDIT
     * the bank refuses: REFUSED, ACQ_001 with `detailedErrorCode`, answered as the call's
     * transaction; the payment's refundAmount does not grow. That a refund can be refused is
     * documented (the Merchant Back Office's refund statuses: in progress, approved, refused,
     * cancelled); its detailedStatus REFUSED and ACQ_001 are INFERRED from a refused payment's;
     * the default code 05 (do not honor, CB table) for a refund is INVENTED.
     */
    refuseNextRefund(paymentUuid: string, detailedErrorCode: string = DECLINE_CODES.doNotHonor): void {
      const t = known(paymentUuid);
      if (t.operationType !== 'DEBIT') throw new Error(`fake: ${paymentUuid} is a ${t.operationType}, not a payment`);
      refundRefusals.set(t.uuid, detailedErrorCode);
    },

    /**
     * Test control: an accepted refund is cancelled (a Back Office "cancelled" refund, see
     * `refuseNextRefund`; its detailedStatus CANCELLED is INFERRED): the CREDIT becomes
     * CANCELLED and its amount leaves the payment's refundAmount.
     */
    cancelCredit(creditUuid: string): FakeTransaction {
      const credit = known(creditUuid);
      if (credit.operationType !== 'CREDIT') throw new Error(`fake: ${creditUuid} is not a CREDIT`);
      if (credit.detailedStatus !== 'AUTHORISED' && credit.detailedStatus !== 'CAPTURED') {
        throw new Error(`fake: the CREDIT ${creditUuid} is ${credit.detailedStatus}, not an accepted refund`);
      }
      credit.detailedStatus = 'CANCELLED';
      const parent = credit.parentUuid ? transactions.get(credit.parentUuid) : undefined;
      if (parent) parent.refundAmount = Math.max(0, (parent.refundAmount ?? 0) - credit.amount);
      return credit;
    },

    /**
     * Test control: every later answer (Order/Get, Transaction/Get, a notification) shows this
     * transaction as `detailedStatus` until `settleShown` or the next batch; the store keeps,
     * and acts on, the true status.
     */
    showStatus(uuid: string, detailedStatus: string): void {
      known(uuid).shownStatus = detailedStatus;
    },

    /** Test control: every transaction's answers show its true status again. */
    settleShown(): void {
      for (const t of transactions.values()) delete t.shownStatus;
    },

    /**
     * Raw test control: the transaction's true detailedStatus becomes `detailedStatus`, whatever
     * it was (a status the adapter does not know, a state Lyra would reach on its own).
     */
    setStatus(uuid: string, detailedStatus: string): FakeTransaction {
      const t = known(uuid);
      t.detailedStatus = detailedStatus;
      return t;
    },

    card(token: unknown): (Card & { token: string }) | undefined {
      const card = typeof token === 'string' ? cards.get(token) : undefined;
      return card && typeof token === 'string' ? { ...card, token } : undefined;
    },

    /**
     * INVENTED test control (Lyra has no such service): the bank refuses this saved card from
     * now on, as a card that went bad after its registration (`refusedLater` behaves so), with
     * ACQ_001 and `detailedErrorCode` (default 51; e.g. DECLINE_CODES.stolenCard).
     */
    refuseCardFromNowOn(token: string, detailedErrorCode: string = DECLINE_CODES.insufficientFunds): void {
      const card = cards.get(token);
      if (!card) throw new Error(`fake: no card ${token}`);
      card.pan = LYRA_CARDS.refusedLater;
      card.refusalCode = detailedErrorCode;
    },

    cancelCard(token: unknown): void {
      const card = typeof token === 'string' ? cards.get(token) : undefined;
      if (!card || card.cancelledAt) throw new FakeServiceError('PSP_030', 'token invalid or unknown');
      // Real time, not Lyra's clock: the adapter compares a token's cancellationDate with its own now.
      card.cancelledAt = new Date().toISOString();
    },
  };
}

export type FakeStore = ReturnType<typeof fakeStore>;
