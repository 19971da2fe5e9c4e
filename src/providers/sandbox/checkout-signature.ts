import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../secrets/index.ts';

/**
 * The hidden fields of the card form, in signing order. The guest's browser carries them to
 * the sandbox; the signature is what stops a guest paying 1 cent, redirecting the IPN, reusing
 * an old form past its expiry or passing one attempt off as another.
 */
export const CHECKOUT_FIELDS = [
  'order_id',
  'reference',
  'request_type',
  'amount',
  'currency',
  'language',
  'merchant_name',
  'return_url',
  'notify_url',
  'attempt_id',
  'expires_at',
] as const;

export type CheckoutField = (typeof CHECKOUT_FIELDS)[number];
export type CheckoutFields = Record<CheckoutField, string>;

/** How long a card form may be submitted after it was made, as a provider's payment session. */
export const ATTEMPT_LIFETIME_MS = 30 * 60_000;

export function checkoutKey(secretKey: string): Buffer {
  return deriveKey(secretKey, 'sandbox-checkout');
}

/**
 * A new attempt at paying the order: each form made is its own, single-use, and expires.
 * Every page of the guest's payment link makes a new one, so a reload never shares an attempt
 * with a form already submitted.
 */
export function newAttempt(order: Omit<CheckoutFields, 'attempt_id' | 'expires_at'>, now: Date): CheckoutFields {
  return {
    ...order,
    // randomUUID draws from a cached entropy pool: a page view pays well under a microsecond.
    attempt_id: `att_${randomUUID()}`,
    expires_at: new Date(now.getTime() + ATTEMPT_LIFETIME_MS).toISOString(),
  };
}

/** A form whose expiry is past, or unreadable (only an older sandbox could have signed one). */
export function attemptExpired(fields: CheckoutFields, now: Date): boolean {
  const expires = Date.parse(fields.expires_at);
  return !(expires > now.getTime());
}

// JSON of the values in a fixed order: no separator a value could contain can shift a
// boundary, so no two different field sets sign alike.
function mac(key: Buffer, fields: CheckoutFields): Buffer {
  const text = JSON.stringify(CHECKOUT_FIELDS.map((f) => fields[f]));
  return createHmac('sha256', key).update(text).digest();
}

export function signCheckout(key: Buffer, fields: CheckoutFields): string {
  return mac(key, fields).toString('hex');
}

/** The signed fields when the posted form carries all of them and a matching signature. */
export function verifyCheckout(key: Buffer, form: Record<string, string>): CheckoutFields | undefined {
  const fields = {} as CheckoutFields;
  for (const f of CHECKOUT_FIELDS) {
    const v = form[f];
    if (typeof v !== 'string') return undefined;
    fields[f] = v;
  }
  const given = Buffer.from(form.signature ?? '', 'hex');
  const expected = mac(key, fields);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return fields;
}
