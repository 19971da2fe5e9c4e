import { createHmac } from 'node:crypto';

/**
 * RFC 6238 written out here, apart from the service's library: a test that signs in with a
 * code computed by this, from the key the page shows, proves the page's key works in any
 * authenticator app (checked against the RFC's own test vector in two-factor.test.ts).
 */
export function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/[\s=]/g, '').toUpperCase()) {
    const v = alphabet.indexOf(c);
    if (v < 0) throw new Error(`not base32: ${c}`);
    bits += v.toString(2).padStart(5, '0');
  }
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => Number.parseInt(b, 2)));
}

/** HOTP (RFC 4226) of the 30-second step of `at`, HMAC-SHA1, `digits` digits. */
export function rfc6238(key: Buffer, at: Date, digits = 6, period = 30): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at.getTime() / 1000 / period)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  const value = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(value % 10 ** digits).padStart(digits, '0');
}

/** The code an app shows at `at` for the key as a page prints it (groups of four, spaces). */
export function codeFor(shownKey: string, at: Date): string {
  return rfc6238(base32Decode(shownKey), at);
}
