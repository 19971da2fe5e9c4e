import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../secrets/index.ts';

/** `sha256=<hex HMAC-SHA-256 of the raw body>`, keyed by deriveKey(SECRET_KEY, 'sandbox-ipn'). */
export const IPN_SIGNATURE_HEADER = 'x-sandbox-signature';

export function ipnKey(secretKey: string): Buffer {
  return deriveKey(secretKey, 'sandbox-ipn');
}

export function signIpn(key: Buffer, rawBody: string): string {
  return `sha256=${createHmac('sha256', key).update(rawBody, 'utf8').digest('hex')}`;
}

/** Constant-time comparison on the bytes as received, before anything reads the body. */
export function ipnSignatureValid(key: Buffer, rawBody: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const m = /^sha256=([0-9a-f]{64})$/.exec(header.trim());
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1], 'hex');
  const expected = createHmac('sha256', key).update(rawBody, 'utf8').digest();
  return timingSafeEqual(given, expected);
}
