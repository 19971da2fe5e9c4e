import { CURRENCIES, hasUnstorableText, isUuid, MAX_AMOUNT } from '../../domain/index.ts';
import { InvalidNotificationError, type ProviderNotification } from '../payment-provider.ts';

/** The sandbox's IPN as it travels: snake_case JSON, like a provider's wire format. */
export interface SandboxIpnBody {
  event_id: string;
  order_id: string;
  outcome: ProviderNotification['outcome'];
  transaction_id?: string;
  /** The transaction's six-digit number (Lyra's legacyTransId): its remittance report's TRANSACTION_ID. */
  transaction_number?: string;
  card_token?: string;
  masked_pan?: string;
  expiry_month?: number;
  expiry_year?: number;
  amount?: number;
  currency?: string;
  detail?: string;
  /** A refusal's reason, as the sandbox's bank gives it (one of payreq's decline reasons). */
  decline_code?: string;
  created_at: string;
}

const OUTCOMES: readonly string[] = ['registered', 'paid', 'refused', 'error'];
/** The sandbox takes payments in payreq's currencies only. */
const CHARGED_IN: readonly string[] = CURRENCIES;
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads a body whose signature already verified. Still checked field by field: a signed body
 * from a different version of the sandbox must fail here, not halfway through applying it.
 */
export function readIpnBody(raw: string): ProviderNotification {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InvalidNotificationError('body is not JSON');
  }
  if (!isRecord(parsed)) throw new InvalidNotificationError('body is not a JSON object');
  const b = parsed;
  const text = (name: string, required: boolean): string | undefined => {
    const v = b[name];
    if (v === undefined || v === null) {
      if (required) throw new InvalidNotificationError(`${name} is missing`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') throw new InvalidNotificationError(`${name} must be a non-empty string`);
    // What PostgreSQL cannot store (NUL, a lone surrogate) would fail the apply as a 500, which
    // the sender retries forever: refused here as unreadable instead.
    if (hasUnstorableText(v)) throw new InvalidNotificationError(`${name} holds NUL or an unpaired surrogate`);
    return v;
  };
  const whole = (name: string, min: number, max: number): number | undefined => {
    const v = b[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      throw new InvalidNotificationError(`${name} must be a whole number from ${min} to ${max}`);
    }
    return v;
  };
  const eventId = text('event_id', true) as string;
  const orderId = text('order_id', true) as string;
  if (!isUuid(orderId)) throw new InvalidNotificationError('order_id must be a UUID');
  const outcome = text('outcome', true) as string;
  if (!OUTCOMES.includes(outcome)) throw new InvalidNotificationError(`outcome "${outcome}" is unknown`);
  const n: ProviderNotification = {
    eventId,
    paymentRequestId: orderId,
    outcome: outcome as ProviderNotification['outcome'],
  };
  const optional = {
    transactionId: text('transaction_id', false),
    legacyTransId: text('transaction_number', false),
    cardToken: text('card_token', false),
    maskedPan: text('masked_pan', false),
    expiryMonth: whole('expiry_month', 1, 12),
    expiryYear: whole('expiry_year', 2000, 2100),
    // The sandbox charges what payreq asked: never more than its largest request.
    amountCents: whole('amount', 0, MAX_AMOUNT * 100),
    currency: text('currency', false),
    detail: text('detail', false),
    declineCode: text('decline_code', false),
  };
  for (const [k, v] of Object.entries(optional)) {
    if (v !== undefined) Object.assign(n, { [k]: v });
  }
  // Money in a currency the sandbox never charges in ("EURO") is no money: refused here, it is
  // never stored as an incident that pages and the books would have to make sense of.
  if (n.currency !== undefined && !CHARGED_IN.includes(n.currency)) {
    throw new InvalidNotificationError(`currency "${n.currency}" is none the sandbox charges in`);
  }
  if (n.legacyTransId !== undefined && !/^[0-9]{6}$/.test(n.legacyTransId)) {
    throw new InvalidNotificationError('transaction_number must be six digits');
  }
  if (n.outcome === 'registered' && !(n.cardToken && n.maskedPan && n.expiryMonth && n.expiryYear)) {
    throw new InvalidNotificationError('a registered card needs card_token, masked_pan and its expiry');
  }
  if (n.outcome === 'paid' && (n.amountCents === undefined || !n.transactionId)) {
    throw new InvalidNotificationError('a payment needs amount and transaction_id');
  }
  return n;
}
