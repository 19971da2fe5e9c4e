import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../payment-provider.ts';

/** Stripe's default tolerance between an event's signing time and now (docs.stripe.com/webhooks). */
export const SIGNATURE_TOLERANCE_S = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * hex(HMAC-SHA256(secret, `${t}.${raw body}`)): the `v1` scheme of `Stripe-Signature`, keyed
 * with the whole `whsec_…` string (docs.stripe.com/webhooks, "Verify signatures manually").
 * For the fake and tests too.
 */
export function signPayload(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/** A `Stripe-Signature` header as Stripe sends it. */
export function signatureHeader(secret: string, timestamp: number, rawBody: string): string {
  return `t=${timestamp},v1=${signPayload(secret, timestamp, rawBody)}`;
}

/**
 * Checks `Stripe-Signature` (`t=…`, one `v1=…` or more: several while a secret is rolled;
 * other schemes ignored) against the body exactly as received, before anything in it is read:
 * any `v1` that matches, compared in constant time, and a `t` within the tolerance either way
 * (an old event replayed is refused, whatever its signature). Throws InvalidNotificationError.
 */
export function verifySignature(
  rawBody: string,
  header: string | string[] | undefined,
  secret: string,
  now: Date = new Date(),
): void {
  if (typeof header !== 'string' || header === '') throw new InvalidNotificationError('Stripe-Signature missing');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) {
        throw new InvalidNotificationError('Stripe-Signature: t missing, repeated or not a time');
      }
      timestamp = Number(value);
    } else if (key === 'v1') signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined) throw new InvalidNotificationError('Stripe-Signature: no t');
  if (signatures.length === 0) throw new InvalidNotificationError('Stripe-Signature: no v1 signature');
  if (Math.abs(now.getTime() / 1000 - timestamp) > SIGNATURE_TOLERANCE_S) {
    throw new InvalidNotificationError(`Stripe-Signature: signed at ${timestamp}, outside the tolerance`);
  }
  const expected = Buffer.from(signPayload(secret, timestamp, rawBody), 'hex');
  const matches = signatures.some((s) => HEX_SHA256.test(s) && timingSafeEqual(expected, Buffer.from(s, 'hex')));
  if (!matches) throw new InvalidNotificationError('bad signature');
}
