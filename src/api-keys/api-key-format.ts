import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** No 0/O, 1/I/l: a key read aloud or copied from a screen cannot be misread. */
export const KEY_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
export const PREFIX_LENGTH = 8;
export const SECRET_LENGTH = 56;
const KEY_PATTERN = new RegExp(`^([${KEY_ALPHABET}]{${PREFIX_LENGTH}})\\.([${KEY_ALPHABET}]{${SECRET_LENGTH}})$`);

function randomString(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return s;
}

export interface GeneratedKey {
  prefix: string;
  secret: string;
  key: string;
  secretHash: Buffer;
}

/** A new key: about 330 bits of secret, so a plain SHA-256 is a sound hash (no stretching needed). */
export function generateApiKey(): GeneratedKey {
  const prefix = randomString(PREFIX_LENGTH);
  const secret = randomString(SECRET_LENGTH);
  return { prefix, secret, key: `${prefix}.${secret}`, secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function parseApiKey(header: unknown): { prefix: string; secret: string } | undefined {
  if (typeof header !== 'string') return undefined;
  const m = KEY_PATTERN.exec(header);
  return m ? { prefix: m[1] as string, secret: m[2] as string } : undefined;
}

export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const h = hashSecret(secret);
  return storedHash.length === h.length && timingSafeEqual(h, storedHash);
}
