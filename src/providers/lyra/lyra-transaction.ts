import { isObject } from './client.ts';

/**
 * The fields of a V4 Transaction (in a Payment's `transactions`, an order's list, or alone as
 * the answer of Validate / Cancel / CancelOrRefund / Update / Get) that payreq reads.
 */
export interface LyraTransaction {
  uuid: string;
  /** Minor units of `currency`, as Lyra counts them. */
  amount: number;
  currency: string;
  /** PAID / RUNNING / UNPAID / ABANDONED. */
  status: string;
  detailedStatus: string;
  /** DEBIT (a payment or a hold), VERIFICATION (a card saved, nothing debited), CREDIT (a refund). */
  operationType: string;
  creationDate: Date;
  orderId: string | null;
  errorCode: string | null;
  detailedErrorCode: string | null;
  paymentMethodToken: string | null;
  /** Echo of the request's `metadata`: where our idempotency key comes back. */
  metadata: Record<string, string>;
  /** A refund's payment. */
  parentUuid: string | null;
  manualValidation: boolean;
  maskedPan: string | null;
  /** The brand the card was processed as (`CB`, `VISA`, `MASTERCARD`...): its network. */
  effectiveBrand: string | null;
  expiryMonth: number | null;
  expiryYear: number | null;
  /** The card network's id of this authorisation; a registration's is sent back on each MIT. */
  initialIssuerTransactionId: string | null;
  /**
   * `cardDetails.legacyTransId`: the transaction's 6-digit number (the form API's vads_trans_id),
   * which the bank reconciliation report names it by (TRANSACTION_ID).
   */
  legacyTransId: string | null;
}

/** Reads one transaction; undefined when a field we rely on is missing or of the wrong type. */
export function readTransaction(value: unknown): LyraTransaction | undefined {
  if (!isObject(value)) return undefined;
  const { uuid, amount, currency, status, detailedStatus, operationType } = value;
  if (typeof uuid !== 'string' || uuid === '') return undefined;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) return undefined;
  if (typeof currency !== 'string' || typeof status !== 'string') return undefined;
  if (typeof detailedStatus !== 'string' || typeof operationType !== 'string') return undefined;
  const created = typeof value.creationDate === 'string' ? new Date(value.creationDate) : undefined;
  if (!created || Number.isNaN(created.getTime())) return undefined;
  const details = objectOr(value.transactionDetails);
  const card = objectOr(details.cardDetails);
  return {
    uuid,
    amount,
    currency,
    status,
    detailedStatus,
    operationType,
    creationDate: created,
    orderId: stringOr(objectOr(value.orderDetails).orderId) ?? stringOr(value.orderId),
    errorCode: stringOr(value.errorCode),
    detailedErrorCode: stringOr(value.detailedErrorCode),
    paymentMethodToken: stringOr(value.paymentMethodToken),
    metadata: stringsOf(value.metadata),
    parentUuid: stringOr(details.parentTransactionUuid),
    manualValidation: card.manualValidation === 'YES',
    maskedPan: stringOr(card.pan),
    effectiveBrand: stringOr(card.effectiveBrand),
    expiryMonth: integerOr(card.expiryMonth),
    expiryYear: integerOr(card.expiryYear),
    initialIssuerTransactionId: stringOr(card.initialIssuerTransactionIdentifier),
    legacyTransId: stringOr(card.legacyTransId),
  };
}

function objectOr(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function integerOr(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

function stringsOf(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}
