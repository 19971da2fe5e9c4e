import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import { keyById, LEGACY_KEY_ID, type SecretKeyRing } from './key-ring.ts';

/**
 * Everything the service keeps secret is derived from SECRET_KEY, one key per purpose (HKDF),
 * so a key used to sign one thing can never decrypt another.
 */
export function deriveKey(secretKey: string, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'payreq', purpose, length));
}

/**
 * A sealed value that cannot be opened: its key is not configured (`unknown_key`: the id is
 * neither SECRET_KEY_ID nor in SECRET_KEYS_OLD), or the key named does not open it
 * (`unreadable`: another key under that id, another row's value, or damage). The message names
 * the key id, never the value.
 */
export class SealedValueError extends Error {
  readonly reason: 'unknown_key' | 'unreadable' | 'format';
  readonly keyId: string | undefined;
  constructor(reason: 'unknown_key' | 'unreadable' | 'format', keyId: string | undefined, message: string) {
    super(message);
    this.reason = reason;
    this.keyId = keyId;
    this.name = 'SealedValueError';
  }
}

/**
 * The id of the key that sealed `sealed`: `v2:<id>:<data>`, or LEGACY_KEY_ID for `v1:<data>`
 * (sealed before values named their key). undefined for anything else.
 */
export function sealedKeyId(sealed: string): string | undefined {
  if (sealed.startsWith('v1:')) return LEGACY_KEY_ID;
  if (!sealed.startsWith('v2:')) return undefined;
  const end = sealed.indexOf(':', 3);
  return end > 3 ? sealed.slice(3, end) : undefined;
}

/**
 * Authenticated encryption (AES-256-GCM) of small values at rest, card tokens above all. A
 * value is bound to its context (the payment request id), so a ciphertext copied onto another
 * row does not decrypt. It is sealed with the ring's current key and names it (`v2:<id>:…`);
 * it opens with whichever key of the ring its id names.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
  /** Whether `sealed` is under the current key already (reseal leaves it alone). */
  isCurrent(sealed: string): boolean;
}

export function secretBox(ring: SecretKeyRing, purpose: string): SecretBox {
  // Key objects, made once per key id: a raw key given to each cipher is copied into a new key
  // object every time (the daily job opens a card token per hold).
  const derived = new Map<string, KeyObject>();
  const keyFor = (id: string): KeyObject | undefined => {
    let k = derived.get(id);
    if (!k) {
      const named = keyById(ring, id);
      if (!named) return undefined;
      k = createSecretKey(deriveKey(named.key, `secret-box:${purpose}`));
      derived.set(id, k);
    }
    return k;
  };
  const currentId = ring.current.id;
  return {
    seal(plain, context) {
      const key = keyFor(currentId) as KeyObject;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v2:${currentId}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, context) {
      const id = sealedKeyId(sealed);
      if (id === undefined) throw new SealedValueError('format', undefined, 'sealed value: unknown format');
      const key = keyFor(id);
      if (!key) {
        throw new SealedValueError(
          'unknown_key',
          id,
          `sealed value: key id "${id}" is not configured (neither SECRET_KEY_ID nor in SECRET_KEYS_OLD)`,
        );
      }
      const raw = Buffer.from(sealed.slice(sealed.lastIndexOf(':') + 1), 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        throw new SealedValueError(
          'unreadable',
          id,
          `sealed value: key id "${id}" does not open it (another key under that id, or a damaged value)`,
        );
      }
    },
    isCurrent(sealed) {
      return sealedKeyId(sealed) === currentId;
    },
  };
}
