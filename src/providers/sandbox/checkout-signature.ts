import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../secrets/index.js';

/**
 * The hidden fields of the card form, in signing order. The guest's browser carries them to
 * the sandbox; the signature is what stops a guest paying 1 cent or redirecting the IPN.
 */
export const CHECKOUT_FIELDS = [
  'order_id',
  'reference',
  'request_type',
  'amount',
  'currency',
  'language',
  'return_url',
  'notify_url',
] as const;

export type CheckoutField = (typeof CHECKOUT_FIELDS)[number];
export type CheckoutFields = Record<CheckoutField, string>;

export function checkoutKey(secretKey: string): Buffer {
  return deriveKey(secretKey, 'sandbox-checkout');
}

/**
 * The last signatures made, by key and signed text: a guest page reloaded, or opened by many
 * guests' browsers, signs the same fields again, and an HMAC's set-up costs more than the
 * rest of the form. The answer is the same function of the same input, only remembered.
 */
const recent = new Map<string, Buffer>();
const RECENT_MAX = 2000;

// JSON of the values in a fixed order: no separator a value could contain can shift a
// boundary, so no two different field sets sign alike.
function mac(key: Buffer, fields: CheckoutFields): Buffer {
  const text = JSON.stringify(CHECKOUT_FIELDS.map((f) => fields[f]));
  const memo = `${key.toString('base64')}\n${text}`;
  const known = recent.get(memo);
  if (known) return known;
  const digest = createHmac('sha256', key).update(text).digest();
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
  recent.set(memo, digest);
  return digest;
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
