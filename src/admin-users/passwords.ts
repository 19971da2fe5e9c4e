import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { PASSWORD_HASH_COST } from '../config/index.ts';

/**
 * Passwords with scrypt (memory-hard, in Node itself: no native add-on to build). The stored
 * form carries its parameters, `scrypt$N$r$p$salt$hash`, so they can be raised and old hashes
 * still verify; a hash below today's parameters is replaced at the user's next successful
 * sign-in (needsRehash). Today: N=2^17, r=8, p=1 (OWASP's password storage guidance), 128 MiB
 * and about 150 ms a hash: a stolen table costs that much per guess; a sign-in can afford it.
 */
export const SCRYPT = { N: 2 ** PASSWORD_HASH_COST.production, r: 8, p: 1 } as const;

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The parameters new hashes are made at for a PASSWORD_HASH_COST (config): today's r and p, N = 2^cost. */
export function scryptParams(cost: number): ScryptParams {
  return { ...SCRYPT, N: 2 ** cost };
}
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; Node refuses above maxmem (32 MiB by default). */
const MAX_MEMORY = 2 * 128 * SCRYPT.N * SCRYPT.r;

/** What a stored hash may hold: anything else is a malformed hash, never handed to scrypt. */
const STORED =
  /^scrypt\$([1-9]\d{0,7})\$([1-9]\d?)\$([1-9]\d?)\$([A-Za-z0-9+/]{16,}={0,2})\$([A-Za-z0-9+/]{22,}={0,2})$/;

interface Parsed {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const m = STORED.exec(stored);
  if (!m) return undefined;
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const powerOfTwo = n >= 2 && (n & (n - 1)) === 0;
  // Within what this code would ever have written, and what fits the memory it allows.
  if (!powerOfTwo || n < 2 ** 10 || r > 32 || p > 16 || 128 * n * r > MAX_MEMORY) return undefined;
  const hash = Buffer.from(m[5] ?? '', 'base64');
  if (hash.length < 16 || hash.length > 64) return undefined;
  return { n, r, p, salt: Buffer.from(m[4] ?? '', 'base64'), hash };
}

function derive(password: string, salt: Buffer, length: number, n: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: n, r, p, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, params: ScryptParams = SCRYPT): Promise<string> {
  const { N, r, p } = params;
  const salt = randomBytes(16);
  const key = await derive(password, salt, KEY_LENGTH, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** Right, and stored below the parameters asked for (today's unless said): store a new hash. */
  needsRehash: boolean;
  /** The stored hash could not be read (refused; the caller logs it). */
  malformed: boolean;
}

/**
 * Checks a password against its stored hash. A malformed hash is a refusal, never an error:
 * the password is then checked against the decoy, so it takes as long as any other refusal.
 */
export async function checkPassword(
  password: string,
  stored: string,
  params: ScryptParams = SCRYPT,
): Promise<PasswordCheck> {
  const parsed = parse(stored);
  if (!parsed) {
    const decoy = parse(await decoyHash(params));
    if (decoy) await derive(password, decoy.salt, decoy.hash.length, decoy.n, decoy.r, decoy.p);
    return { ok: false, needsRehash: false, malformed: true };
  }
  let key: Buffer;
  try {
    key = await derive(password, parsed.salt, parsed.hash.length, parsed.n, parsed.r, parsed.p);
  } catch {
    return { ok: false, needsRehash: false, malformed: true };
  }
  const ok = timingSafeEqual(key, parsed.hash);
  const weaker = parsed.n < params.N || parsed.r < params.r || parsed.p < params.p || parsed.hash.length < KEY_LENGTH;
  return { ok, needsRehash: ok && weaker, malformed: false };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  return (await checkPassword(password, stored)).ok;
}

/**
 * A hash of no one's password, at the parameters new hashes are made at: a sign-in for an
 * unknown username verifies against it, so it takes as long as a wrong password and the timing
 * does not tell which usernames exist.
 */
const decoys = new Map<string, Promise<string>>();
export function decoyHash(params: ScryptParams = SCRYPT): Promise<string> {
  const key = `${params.N}$${params.r}$${params.p}`;
  let decoy = decoys.get(key);
  if (!decoy) {
    decoy = hashPassword(randomBytes(16).toString('hex'), params);
    decoys.set(key, decoy);
  }
  return decoy;
}
