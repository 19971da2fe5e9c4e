import type { CardNetwork } from '../../domain/index.ts';
import type { ProviderTransactionKind, ProviderTransactionStatus } from '../payment-provider.ts';
import type { LyraTransaction } from './lyra-transaction.ts';

/**
 * What a Lyra transaction's `detailedStatus` means for payreq, in one table. `status` is the
 * ProviderTransaction status of a DEBIT or VERIFICATION (a CREDIT that took money is a done
 * refund, see transactionStatus). 'in_flight': Lyra has not decided yet; payreq waits rather
 * than guess. A status missing here is 'unknown': only the verdicts that read its transaction
 * wait for an operator.
 *
 * Lyra's own simple `status` (PAID / RUNNING / UNPAID / ABANDONED) is implied by each row and
 * not needed: the detailed one is finer. `orderCycle` (OPEN / CLOSED) says whether the order
 * may take another attempt, which changes no transaction's state: payreq does not read it.
 */
export const DETAILED_STATUSES: Readonly<Record<string, { status: ProviderTransactionStatus }>> = {
  // A card saved without a debit (VERIFICATION): final, never captured.
  ACCEPTED: { status: 'accepted' },
  // Authorised and captured automatically at the expected date, or already sent to the bank.
  // A validated hold is AUTHORISED too: the money is guaranteed, the nightly batch is Lyra's detail.
  AUTHORISED: { status: 'captured' },
  CAPTURED: { status: 'captured' },
  PARTIALLY_AUTHORISED: { status: 'captured' },
  // Capture date beyond the authorisation's validity: the authorisation is only asked the day
  // before the capture, and may still be refused. Nothing is decided yet.
  WAITING_AUTHORISATION: { status: 'in_flight' },
  // Manual validation: held, waiting for our Validate (capture) or Cancel (release).
  AUTHORISED_TO_VALIDATE: { status: 'authorised' },
  WAITING_AUTHORISATION_TO_VALIDATE: { status: 'authorised' },
  REFUSED: { status: 'refused' },
  CANCELLED: { status: 'cancelled' },
  // A hold not validated in time: nothing was taken and the hold is gone, as after a release.
  EXPIRED: { status: 'cancelled' },
  // The bank remittance failed: nothing taken; a case for Lyra's support.
  CAPTURE_FAILED: { status: 'error' },
  // The guest left, or the transaction was never created: nothing moved.
  ABANDONED: { status: 'error' },
  NOT_CREATED: { status: 'error' },
  // Transient states (inferred RUNNING from Lyra's plugins' pending lists).
  UNDER_VERIFICATION: { status: 'in_flight' },
  INITIAL: { status: 'in_flight' },
  PRE_AUTHORISED: { status: 'in_flight' },
  WAITING_FOR_PAYMENT: { status: 'in_flight' },
  SUSPENDED: { status: 'in_flight' },
  PENDING: { status: 'in_flight' },
  REFUND_TO_RETRY: { status: 'in_flight' },
};

export function transactionKind(t: LyraTransaction): ProviderTransactionKind | undefined {
  switch (t.operationType) {
    case 'VERIFICATION':
      return 'verification';
    case 'CREDIT':
      return 'refund';
    case 'DEBIT':
      return t.manualValidation ? 'hold' : 'payment';
    default:
      return undefined;
  }
}

/** 'unknown': a detailedStatus this table does not know; the caller must not guess. */
export function transactionStatus(t: LyraTransaction): ProviderTransactionStatus {
  const row = Object.hasOwn(DETAILED_STATUSES, t.detailedStatus) ? DETAILED_STATUSES[t.detailedStatus] : undefined;
  if (!row) return 'unknown';
  // A refund is its own CREDIT transaction: once it took money back, it is a done refund.
  if (t.operationType === 'CREDIT' && row.status === 'captured') return 'refunded';
  return row.status;
}

/** The reason of a refusal as Lyra gives it: `ACQ_001/51` (the bank's code after the slash). */
export function declineCodeOf(t: LyraTransaction): string | null {
  if (!t.errorCode) return null;
  return t.detailedErrorCode ? `${t.errorCode}/${t.detailedErrorCode}` : t.errorCode;
}

/**
 * A refusal by the bank (ACQ_001, or REFUSED without a technical code), as opposed to a
 * technical failure (ACQ_999, an INT_ or PSP_ code) that may also leave a transaction REFUSED.
 */
export function isRefusal(t: LyraTransaction): boolean {
  if (t.errorCode === 'ACQ_001') return true;
  return t.detailedStatus === 'REFUSED' && !isTechnicalCode(t.errorCode);
}

function isTechnicalCode(code: string | null): boolean {
  return code === 'ACQ_999' || code?.startsWith('INT_') === true || code?.startsWith('PSP_') === true;
}

/**
 * ISO 4217 exponents that are not 2 (Lyra's amounts are in the currency's smallest unit).
 * payreq counts every amount in hundredths of the unit, whatever the currency.
 */
const DECIMALS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

function decimals(currency: string): number {
  return DECIMALS[currency.toUpperCase()] ?? 2;
}

/** Hundredths to Lyra's minor units; undefined when the currency cannot carry that precision. */
export function toLyraAmount(hundredths: number, currency: string): number | undefined {
  const d = decimals(currency);
  const scaled = d >= 2 ? hundredths * 10 ** (d - 2) : hundredths / 10 ** (2 - d);
  return Number.isSafeInteger(scaled) ? scaled : undefined;
}

/** Lyra's minor units to hundredths; undefined when it does not come out whole (a 3-decimal amount). */
export function fromLyraAmount(minor: number, currency: string): number | undefined {
  const d = decimals(currency);
  const scaled = d >= 2 ? minor / 10 ** (d - 2) : minor * 10 ** (2 - d);
  return Number.isSafeInteger(scaled) ? scaled : undefined;
}

/** Lyra's `effectiveBrand` for each network whose hold rule payreq applies (Lyra's brand codes). */
const BRAND_NETWORKS: Readonly<Record<string, CardNetwork>> = {
  CB: 'cb',
  'E-CARTEBLEUE': 'cb',
  VISA: 'visa',
  VISA_ELECTRON: 'visa',
  VPAY: 'visa',
  MASTERCARD: 'mastercard',
  MAESTRO: 'maestro',
  AMEX: 'amex',
};

/** The network Lyra says carried a transaction (its effective brand); undefined: it named none. */
export function cardNetworkOf(t: Pick<LyraTransaction, 'effectiveBrand'>): CardNetwork | undefined {
  if (!t.effectiveBrand) return undefined;
  return Object.hasOwn(BRAND_NETWORKS, t.effectiveBrand) ? BRAND_NETWORKS[t.effectiveBrand] : 'other';
}
