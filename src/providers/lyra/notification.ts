import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIsoCurrency, isUuid, MAX_AMOUNT } from '../../domain/index.ts';
import { IgnoredNotification, InvalidNotificationError, type ProviderNotification } from '../payment-provider.ts';
import { isObject } from './client.ts';
import { type LyraTransaction, readTransaction } from './lyra-transaction.ts';
import {
  cardNetworkOf,
  DETAILED_STATUSES,
  declineCodeOf,
  fromLyraAmount,
  isRefusal,
  transactionKind,
  transactionStatus,
} from './mapping.ts';

/** The five form fields of a Lyra notification (IPN) and of the browser's return. */
export interface SignedAnswer {
  /** The JSON text of a V4 Payment, exactly as sent. */
  answer: string;
  hash: string;
  /** `password` (IPN, signed with the shop password) or `sha256_hmac` (browser return, the HMAC key). */
  hashKey: string;
  answerType: string;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Reads the form-encoded fields; anything missing or twice is refused. */
export function readSignedForm(rawBody: string): SignedAnswer {
  const form = new URLSearchParams(rawBody);
  const one = (name: string): string => {
    const values = form.getAll(name);
    if (values.length !== 1 || values[0] === '') throw new InvalidNotificationError(`${name}: missing or repeated`);
    return values[0]!;
  };
  const algorithm = one('kr-hash-algorithm');
  if (algorithm !== 'sha256_hmac') throw new InvalidNotificationError(`kr-hash-algorithm ${algorithm} not supported`);
  return {
    answer: one('kr-answer'),
    hash: one('kr-hash'),
    hashKey: one('kr-hash-key'),
    answerType: one('kr-answer-type'),
  };
}

/**
 * hex(HMAC-SHA-256(key, kr-answer)) over the text as received, after the one rewrite Lyra's own
 * plugins apply (`\/` to `/`: some servers escape slashes in transit). Never re-serialised:
 * the signature covers bytes, not a JSON value. Compared in constant time.
 */
export function signatureValid(key: string, signed: SignedAnswer): boolean {
  const hash = signed.hash.toLowerCase();
  if (!HEX_SHA256.test(hash)) return false;
  const expected = createHmac('sha256', key).update(signed.answer.replaceAll('\\/', '/'), 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(hash, 'hex'));
}

/** Signs an answer as Lyra does; for the wire fake and tests. */
export function signAnswer(key: string, answer: string): string {
  return createHmac('sha256', key).update(answer, 'utf8').digest('hex');
}

/**
 * A server-to-server notification: signed with the shop password, never anything else (the
 * browser's return, signed with the HMAC key, is not a notification and changes no status).
 */
export function parseLyraNotification(rawBody: string, password: string): ProviderNotification {
  const signed = readSignedForm(rawBody);
  if (signed.hashKey !== 'password') {
    throw new InvalidNotificationError(`kr-hash-key ${signed.hashKey}: a notification is signed with the password`);
  }
  if (!signatureValid(password, signed)) throw new InvalidNotificationError('bad signature');
  return notificationOf(readPayment(signed.answer));
}

/** The browser's return to the result page: verified with the HMAC key, read, never applied. */
export function verifyBrowserReturn(rawBody: string, hmacKey: string): ProviderNotification {
  const signed = readSignedForm(rawBody);
  if (signed.hashKey !== 'sha256_hmac') throw new InvalidNotificationError(`kr-hash-key ${signed.hashKey} unexpected`);
  if (!signatureValid(hmacKey, signed)) throw new InvalidNotificationError('bad signature');
  return notificationOf(readPayment(signed.answer));
}

/**
 * The order a notification claims to be about, read BEFORE its signature can be checked: the
 * key to check it with is that order's tenant's. Nothing else is read from an unverified
 * answer, and the claim only chooses the key: a forged one fails the signature.
 */
export function claimedOrderId(rawBody: string): string {
  const { answer } = readSignedForm(rawBody);
  let payment: unknown;
  try {
    payment = JSON.parse(answer);
  } catch {
    throw new InvalidNotificationError('kr-answer is not JSON');
  }
  const orderId = isObject(payment) && isObject(payment.orderDetails) ? payment.orderDetails.orderId : undefined;
  if (typeof orderId !== 'string' || orderId === '') throw new InvalidNotificationError('kr-answer names no order');
  // payreq's orders are its request ids: anything else is no order of ours.
  if (!isUuid(orderId)) throw new InvalidNotificationError('kr-answer: the order is not a payreq request id');
  return orderId;
}

interface Payment {
  orderId: string;
  transaction: LyraTransaction;
}

function readPayment(answer: string): Payment {
  let payment: unknown;
  try {
    payment = JSON.parse(answer);
  } catch {
    throw new InvalidNotificationError('kr-answer is not JSON');
  }
  if (!isObject(payment)) throw new InvalidNotificationError('kr-answer is not a Payment');
  const orderId = isObject(payment.orderDetails) ? payment.orderDetails.orderId : undefined;
  if (typeof orderId !== 'string' || orderId === '') throw new InvalidNotificationError('kr-answer names no order');
  // A guest payment has one transaction: the one the card form made.
  const transactions = payment.transactions;
  const transaction =
    Array.isArray(transactions) && transactions.length === 1 ? readTransaction(transactions[0]) : undefined;
  if (!transaction) throw new InvalidNotificationError('kr-answer: no single readable transaction');
  return { orderId, transaction };
}

/**
 * What a guest payment's notification says. Only the card form's outcome is a notification:
 * holds, refunds and cancellations are ours, answered synchronously, so their echo (if Lyra
 * sends one) and states still in transit change nothing here.
 */
function notificationOf({ orderId, transaction: t }: Payment): ProviderNotification {
  const amountCents = documentedAmount(t);
  const outcome = outcomeOf(t);
  if (!outcome) {
    throw new IgnoredNotification(`not a guest payment outcome: ${t.operationType} ${t.detailedStatus}`);
  }
  const detail = [t.errorCode, t.detailedErrorCode].filter(Boolean).join(' ');
  return {
    // Lyra names no event: one transaction reaching one state is one event, however often sent.
    eventId: `lyra:${t.uuid}:${t.detailedStatus}`,
    paymentRequestId: orderId,
    outcome,
    transactionId: t.uuid,
    ...(t.legacyTransId ? { legacyTransId: t.legacyTransId } : {}),
    ...(t.paymentMethodToken && outcome === 'registered' ? { cardToken: t.paymentMethodToken } : {}),
    ...(t.initialIssuerTransactionId && outcome === 'registered'
      ? { initialIssuerTransactionId: t.initialIssuerTransactionId }
      : {}),
    ...(t.maskedPan ? { maskedPan: t.maskedPan } : {}),
    ...(outcome === 'registered' && cardNetworkOf(t) ? { cardNetwork: cardNetworkOf(t) } : {}),
    ...(t.expiryMonth !== null ? { expiryMonth: t.expiryMonth } : {}),
    ...(t.expiryYear !== null ? { expiryYear: t.expiryYear } : {}),
    amountCents,
    currency: t.currency,
    ...(detail ? { detail } : {}),
    ...(outcome === 'refused' ? declineCodeField(t) : {}),
  };
}

/** A refusal's code as payreq keeps it (`ACQ_001/51`), where Lyra gave one. */
function declineCodeField(t: LyraTransaction): { declineCode?: string } {
  const code = declineCodeOf(t);
  return code ? { declineCode: code } : {};
}

/**
 * The transaction's amount in hundredths, once its status, currency and amount are each one
 * Lyra documents (mapping.ts; ISO 4217; whole minor units, no more than payreq ever asks).
 * Anything else is refused at the door, signed or not: a currency that is none ("EURO") or an
 * amount no ledger row can hold would be stored as money, and a status no table knows would
 * be guessed at. Refused, it is logged at warn, and Lyra sends it again.
 */
function documentedAmount(t: LyraTransaction): number {
  if (!Object.hasOwn(DETAILED_STATUSES, t.detailedStatus)) {
    throw new InvalidNotificationError(`detailedStatus ${t.detailedStatus} is none Lyra documents`);
  }
  if (!isIsoCurrency(t.currency)) throw new InvalidNotificationError(`currency ${t.currency} is no ISO 4217 code`);
  const amountCents = fromLyraAmount(t.amount, t.currency);
  if (amountCents === undefined || amountCents > MAX_AMOUNT * 100) {
    throw new InvalidNotificationError(`amount ${t.amount} ${t.currency} unreadable or beyond any request`);
  }
  return amountCents;
}

function outcomeOf(t: LyraTransaction): ProviderNotification['outcome'] | undefined {
  const kind = transactionKind(t);
  const status = transactionStatus(t);
  if (kind !== 'verification' && kind !== 'payment') return undefined;
  if (isRefusal(t)) return 'refused';
  if (kind === 'verification' && status === 'accepted') return 'registered';
  if (kind === 'payment' && status === 'captured') return 'paid';
  // Nothing moved and the bank did not refuse (ACQ_999 and the like): a technical failure.
  if (status === 'error' || status === 'refused') return 'error';
  return undefined;
}
