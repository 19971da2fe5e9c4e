import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Repositories } from '../db/index.ts';
import { SealedValueError, type SecretKeyRing, secretBox } from '../secrets/index.ts';

/**
 * Two-factor sign-in with time-based one-time passwords (RFC 6238) through `otpauth` (MIT,
 * maintained, pure JavaScript over @noble/hashes: no native build): 6 digits, 30-second steps,
 * HMAC-SHA1, the parameters every authenticator app reads from a QR code. A code is accepted
 * one step early or late (a phone's clock a little off), and once: the step it belongs to must
 * be later than the last step used.
 *
 * The secret is sealed at rest with the service's key ring (purpose `totp-secret`, bound to the
 * user id), so `payreq secrets reseal` moves it to a new key like every other secret.
 */
export const TOTP_SETTINGS = { digits: 6, period: 30, algorithm: 'SHA1' } as const;
export const RECOVERY_CODE_COUNT = 10;
const SECRET_BYTES = 20;
const ISSUER = 'payreq';

const totp = (secret: string, label = '') =>
  new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), ...TOTP_SETTINGS });

export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** What the QR code holds: `otpauth://totp/payreq:<username>?secret=…&issuer=payreq&…`. */
export function totpUri(secret: string, username: string): string {
  return totp(secret, username).toString();
}

/** The code for `at` (what a phone shows; tests compute codes with it from the secret shown). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/** The step `code` belongs to, one step either side of `now`, or undefined when it is not one. */
export function codeStep(secret: string, code: string, now: Date): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const otp = totp(secret);
  const delta = otp.validate({ token, timestamp: now.getTime(), window: 1 });
  return delta === null ? undefined : otp.counter({ timestamp: now.getTime() }) + delta;
}

// Crockford's base32 (no i, l, o, u): 16 characters are 80 random bits, printed in groups of 4.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 16 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return chars.match(/.{4}/g)?.join('-') ?? chars;
  });
}

/** As typed: case, spaces and dashes do not matter; o, i and l read as 0, 1 and 1. */
export function normaliseRecoveryCode(typed: string): string {
  return typed
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replaceAll('o', '0')
    .replace(/[il]/g, '1');
}

/**
 * Only a hash is stored. SHA-256 and no salt suffice: a code is 80 random bits, beyond any
 * guessing, and the hash must be findable from the code alone.
 */
export function recoveryCodeHash(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}

export type TwoFactorState = 'off' | 'pending' | 'on';

export function twoFactor(repos: Repositories, keys: SecretKeyRing) {
  const box = secretBox(keys, 'totp-secret');
  const repo = repos.twoFactor;
  // A key that cannot be opened (its SECRET_KEY gone from the ring): no code can match it, and
  // the caller says so (a reset, or a new enrolment, replaces it); never an error page.
  const secretOf = (row: { user_id: string; secret_sealed: string }): string | undefined => {
    try {
      return box.open(row.secret_sealed, row.user_id);
    } catch (err) {
      if (err instanceof SealedValueError) return undefined;
      throw err;
    }
  };

  return {
    async state(userId: string): Promise<{ state: TwoFactorState; recoveryCodesLeft: number }> {
      const row = await repo.find(userId);
      const state: TwoFactorState = !row ? 'off' : row.confirmed_at ? 'on' : 'pending';
      return { state, recoveryCodesLeft: state === 'on' ? await repo.recoveryCodesLeft(userId) : 0 };
    },

    /** A new secret for an enrolment to confirm; undefined when the second factor is on already. */
    async begin(userId: string): Promise<string | undefined> {
      const secret = newTotpSecret();
      return (await repo.begin(userId, box.seal(secret, userId))) ? secret : undefined;
    },

    /** The secret of the enrolment under way, to show again (the page reloaded). */
    async pendingSecret(userId: string): Promise<string | undefined> {
      const row = await repo.find(userId);
      return row && !row.confirmed_at ? secretOf(row) : undefined;
    },

    /**
     * Confirms the enrolment under way with a code from the phone: the recovery codes, to show
     * once (only their hashes are kept), or undefined when the code is wrong.
     */
    async confirm(userId: string, code: string, now: Date): Promise<string[] | undefined> {
      const row = await repo.find(userId);
      const secret = row && !row.confirmed_at ? secretOf(row) : undefined;
      const step = row && secret ? codeStep(secret, code, now) : undefined;
      if (!row || step === undefined) return undefined;
      const codes = newRecoveryCodes();
      const done = await repo.confirm(userId, row.secret_sealed, step, codes.map(recoveryCodeHash));
      return done ? codes : undefined;
    },

    /**
     * A code at sign-in: right, and of a step later than any used before (each code works
     * once: `reused` otherwise).
     */
    async verify(userId: string, code: string, now: Date): Promise<'ok' | 'wrong' | 'reused' | 'unreadable'> {
      const row = await repo.find(userId);
      if (!row?.confirmed_at) return 'wrong';
      const secret = secretOf(row);
      if (secret === undefined) return 'unreadable';
      const step = codeStep(secret, code, now);
      if (step === undefined) return 'wrong';
      return (await repo.useStep(userId, step)) ? 'ok' : 'reused';
    },

    /** A recovery code at sign-in: known and unused, then used. */
    async useRecoveryCode(userId: string, code: string): Promise<boolean> {
      if (normaliseRecoveryCode(code).length !== 16) return false;
      return repo.useRecoveryCode(userId, recoveryCodeHash(code));
    },

    /** A new set of recovery codes in place of the old; undefined when the second factor is off. */
    async replaceRecoveryCodes(userId: string): Promise<string[] | undefined> {
      const codes = newRecoveryCodes();
      return (await repo.replaceRecoveryCodes(userId, codes.map(recoveryCodeHash))) ? codes : undefined;
    },

    /** Turns the second factor off (and forgets its recovery codes); false when it was not there. */
    turnOff(userId: string): Promise<boolean> {
      return repo.remove(userId);
    },
  };
}
export type TwoFactor = ReturnType<typeof twoFactor>;
