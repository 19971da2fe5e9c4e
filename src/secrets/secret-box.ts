import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Everything the service keeps secret is derived from SECRET_KEY, one key per purpose (HKDF),
 * so a key used to sign one thing can never decrypt another.
 */
export function deriveKey(secretKey: string, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'payreq', purpose, length));
}

const VERSION = 'v1';

/**
 * Authenticated encryption (AES-256-GCM) of small values at rest, card tokens above all. A
 * value is bound to its context (the payment request id), so a ciphertext copied onto another
 * row does not decrypt.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function secretBox(secretKey: string, purpose = 'card-token'): SecretBox {
  const key = deriveKey(secretKey, `secret-box:${purpose}`);
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, data] = sealed.split(':');
      if (version !== VERSION || !data) throw new Error('sealed value: unknown format');
      const raw = Buffer.from(data, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
