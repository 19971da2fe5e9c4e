import { randomInt } from 'node:crypto';
import { type FakeTransaction, lyraId } from './wire-shapes.js';

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

/** A service's refusal to act: answered as an ERROR envelope. */
export class FakeServiceError extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Codes the notes record: PSP_010 transaction not found (also Order/Get on an order with no
 * transaction), INT_902 input validation, PSP_030 token invalid/unknown. PSP_999 for an
 * operation refused in the transaction's current state is INVENTED: the real code is not known.
 */
export const notFound = () => new FakeServiceError('PSP_010', 'transaction not found');
export const badInput = (what: string) =>
  new FakeServiceError('INT_902', `web-service input data validation error: ${what}`);
const badState = (t: FakeTransaction, op: string) =>
  new FakeServiceError('PSP_999', `fake (invented code): cannot ${op} a ${t.detailedStatus} transaction`);

interface Card {
  pan: string;
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

/** Orders, transactions, saved cards and issued form tokens, in memory. */
export function fakeStore() {
  const transactions = new Map<string, FakeTransaction>();
  const cards = new Map<string, Card>();
  const forms = new Map<string, FormRequest>();

  const now = () => new Date().toISOString();
  const create = (
    t: Omit<FakeTransaction, 'uuid' | 'creationDate' | 'comments' | 'networkTransactionId'>,
  ): FakeTransaction => {
    const created: FakeTransaction = {
      ...t,
      uuid: lyraId(),
      creationDate: now(),
      comments: [],
      networkTransactionId: networkId(),
    };
    transactions.set(created.uuid, created);
    return created;
  };
  const get = (uuid: unknown): FakeTransaction => {
    const t = typeof uuid === 'string' ? transactions.get(uuid) : undefined;
    if (!t) throw notFound();
    return t;
  };
  const remember = (t: FakeTransaction, comment: unknown) => {
    if (typeof comment === 'string') t.comments.push(comment);
  };
  /** A card's authorisation as the test cards decide it: a registration, or a payment. */
  const decide = (pan: string, registration = false) =>
    pan === LYRA_CARDS.refused || (pan === LYRA_CARDS.refusedLater && !registration)
      ? { detailedStatus: 'REFUSED', errorCode: 'ACQ_001', detailedErrorCode: '51' }
      : pan === LYRA_CARDS.technicalError && !registration
        ? // INVENTED: the detailedStatus of an ACQ_999 transaction is not recorded in the notes.
          { detailedStatus: 'REFUSED', errorCode: 'ACQ_999', detailedErrorCode: null }
        : undefined;

  return {
    transactions,

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
      const refusal = decide(card.pan);
      return create({
        orderId: p.orderId,
        amount: p.amount,
        currency: p.currency,
        operationType: 'DEBIT',
        detailedStatus: refusal?.detailedStatus ?? (p.manualValidation ? 'AUTHORISED_TO_VALIDATE' : 'AUTHORISED'),
        manualValidation: p.manualValidation,
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
      return [...transactions.values()].filter((t) => t.orderId === orderId);
    },

    /** Transaction/Update: lowers a transaction not yet validated nor sent to the bank. */
    update(uuid: unknown, amount: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (t.detailedStatus !== 'AUTHORISED_TO_VALIDATE' && t.detailedStatus !== 'AUTHORISED')
        throw badState(t, 'update');
      if (!Number.isSafeInteger(amount) || (amount as number) <= 0 || (amount as number) > t.amount) {
        throw badInput('cardUpdate.amount');
      }
      t.amount = amount as number;
      remember(t, comment);
      return t;
    },

    /** Transaction/Validate: a held transaction becomes AUTHORISED, captured at the next batch. */
    validate(uuid: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (t.detailedStatus !== 'AUTHORISED_TO_VALIDATE') throw badState(t, 'validate');
      t.detailedStatus = 'AUTHORISED';
      remember(t, comment);
      return t;
    },

    /** Transaction/Cancel: only before the bank has it. */
    cancel(uuid: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (t.detailedStatus !== 'AUTHORISED_TO_VALIDATE' && t.detailedStatus !== 'AUTHORISED')
        throw badState(t, 'cancel');
      t.detailedStatus = 'CANCELLED';
      remember(t, comment);
      return t;
    },

    /**
     * Transaction/CancelOrRefund. Not yet captured: cancelled whole (same uuid, notes
     * `cancel_transaction_payment.json`), or lowered for a part (INFERRED: the notes do not
     * record a partial cancellation). Captured: a new CREDIT transaction whose parent is the
     * payment (notes `refund_transaction_payment.json`), and the parent's refundAmount grows.
     */
    cancelOrRefund(uuid: unknown, amount: unknown, mode: unknown, comment: unknown): FakeTransaction {
      const t = get(uuid);
      if (!Number.isSafeInteger(amount) || (amount as number) <= 0) throw badInput('amount');
      const value = amount as number;
      if (t.operationType !== 'DEBIT') throw badState(t, 'refund');
      if (t.detailedStatus === 'AUTHORISED' || t.detailedStatus === 'AUTHORISED_TO_VALIDATE') {
        if (mode === 'REFUND_ONLY') throw badState(t, 'refund (not captured yet)');
        if (value > t.amount) throw badInput('amount');
        if (value === t.amount) t.detailedStatus = 'CANCELLED';
        else t.amount -= value;
        remember(t, comment);
        return t;
      }
      if (t.detailedStatus !== 'CAPTURED' || mode === 'CANCELLATION_ONLY') throw badState(t, 'refund');
      if (value > t.amount - (t.refundAmount ?? 0)) throw badInput('amount');
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

    /** The nightly remittance: what is AUTHORISED goes to the bank (CAPTURED). */
    runBatch(): void {
      for (const t of transactions.values()) {
        if (t.detailedStatus === 'AUTHORISED' && t.operationType === 'DEBIT') {
          t.detailedStatus = 'CAPTURED';
          t.captureDate = now();
        }
      }
    },

    card(token: unknown): (Card & { token: string }) | undefined {
      const card = typeof token === 'string' ? cards.get(token) : undefined;
      return card && typeof token === 'string' ? { ...card, token } : undefined;
    },

    cancelCard(token: unknown): void {
      const card = typeof token === 'string' ? cards.get(token) : undefined;
      if (!card || card.cancelledAt) throw new FakeServiceError('PSP_030', 'token invalid or unknown');
      card.cancelledAt = now();
    },
  };
}

export type FakeStore = ReturnType<typeof fakeStore>;
