import type { SignInThrottleRepository, ThrottleRow } from '../db/index.ts';

/**
 * Sign-in throttling of the password, per username from one address and per address whatever
 * the username: a stranger guessing a user's password waits, the user signing in from their own
 * address does not (a per-username count across addresses let anyone lock the superusers out
 * with a few wrong guesses). Guessing one username from many addresses is bounded by each
 * address's own count, by the password rules, and by a second factor. The code step (after a
 * right password) and the password asked again of a signed-in user count per username, from
 * wherever: only the user's password reaches them. The first failures are free (5 per key;
 * 20 per address, as a hotel's desks share one); each failure after that makes the key wait,
 * twice as long each time: 15 s, 30 s, 1 min, ... up to 1 hour. A key forgets its failures a
 * day after the last one; a right password clears its key (and gives its address back the
 * attempt).
 */
export const SIGN_IN_LIMITS = {
  freePerUsername: 5,
  freePerAddress: 20,
  firstWaitMs: 15_000,
  maxWaitMs: 60 * 60 * 1000,
  forgetAfterMs: 24 * 60 * 60 * 1000,
} as const;

/** The state of a key after one more failure at `now` (pure). */
export function afterFailure(prev: ThrottleRow | undefined, free: number, now: Date): ThrottleRow {
  const fresh = prev !== undefined && now.getTime() - prev.lastFailureAt.getTime() < SIGN_IN_LIMITS.forgetAfterMs;
  const failures = (fresh ? prev.failures : 0) + 1;
  const over = failures - free;
  const retryAt =
    over >= 0
      ? new Date(now.getTime() + Math.min(SIGN_IN_LIMITS.firstWaitMs * 2 ** over, SIGN_IN_LIMITS.maxWaitMs))
      : null;
  return { failures, lastFailureAt: now, retryAt };
}

/** The same key with one failure fewer: an attempt counted in advance that was right (pure). */
export function refunded(row: ThrottleRow | undefined, free: number): ThrottleRow | null {
  if (!row) return null;
  const failures = Math.max(0, row.failures - 1);
  return { failures, lastFailureAt: row.lastFailureAt, retryAt: failures >= free ? row.retryAt : null };
}

export type SignInGate = { allowed: true } | { allowed: false; retryAt: Date };

/**
 * What is being guessed: the password at sign-in, the second factor (a TOTP or recovery code,
 * after a right password), or the password asked again of a signed-in user before a change to
 * how they sign in (`reauth`). Each has its own per-username count, at the same pace: a right
 * password never clears the code's count, and a session guessing its user's password on the
 * account page cannot lock that user out of the sign-in form. The address count is shared.
 */
export type SignInStep = 'password' | 'code' | 'reauth';
const STEP_PREFIX: Record<SignInStep, string> = { password: 'user', code: 'code', reauth: 'reauth' };

export function signInThrottle(repo: SignInThrottleRepository, step: SignInStep = 'password') {
  const keys = (username: string, address: string) => ({
    user:
      step === 'password'
        ? `${STEP_PREFIX[step]}:${username.slice(0, 64)}@${address}`
        : `${STEP_PREFIX[step]}:${username.slice(0, 64)}`,
    ip: `ip:${address}`,
  });
  return {
    /**
     * Before checking a password: refused with the moment to come back if the username or the
     * address waits; otherwise the attempt is counted as a failure in advance (so that guesses
     * sent in parallel are counted before any is checked), to be given back by succeeded().
     */
    async begin(username: string, address: string, now: Date): Promise<SignInGate> {
      const k = keys(username, address);
      return repo.change([k.user, k.ip], now, (rows) => {
        const waits = [rows.get(k.user)?.retryAt, rows.get(k.ip)?.retryAt].filter(
          (d): d is Date => d != null && d.getTime() > now.getTime(),
        );
        if (waits.length > 0) {
          const retryAt = new Date(Math.max(...waits.map((d) => d.getTime())));
          return { writes: new Map(), result: { allowed: false, retryAt } as SignInGate };
        }
        const writes = new Map([
          [k.user, afterFailure(rows.get(k.user), SIGN_IN_LIMITS.freePerUsername, now)],
          [k.ip, afterFailure(rows.get(k.ip), SIGN_IN_LIMITS.freePerAddress, now)],
        ]);
        return { writes, result: { allowed: true } as SignInGate };
      });
    },

    /** The password (or code) was right: the username starts afresh, the address gets its attempt back. */
    async succeeded(username: string, address: string, now: Date): Promise<void> {
      const k = keys(username, address);
      await repo.change([k.user, k.ip], now, (rows) => ({
        writes: new Map([
          [k.user, null],
          [k.ip, refunded(rows.get(k.ip), SIGN_IN_LIMITS.freePerAddress)],
        ]),
        result: undefined,
      }));
    },

    /** The scheduled purge: keys a day past their last failure and no longer waiting. */
    purge(now: Date): Promise<number> {
      return repo.purge(new Date(now.getTime() - SIGN_IN_LIMITS.forgetAfterMs));
    },
  };
}
export type SignInThrottle = ReturnType<typeof signInThrottle>;
