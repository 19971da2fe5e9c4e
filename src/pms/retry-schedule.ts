/**
 * When a posting Apaleo did not take (down, 5xx, 429, an answer lost) is tried again. Pure: the
 * clock and the counts come in, the decision goes out.
 *
 * The first retry comes within 2 s (1 s), each later one waits twice as long, at most 30 s while
 * the posting is less than an hour old, at most 10 min after; Apaleo's Retry-After is honoured
 * (up to an hour). After 3 days of failures the posting is given up: failed, with the last error,
 * to be retried by hand.
 */
export const RETRY_BASE_MS = 1000;
export const FIRST_HOUR_CAP_MS = 30_000;
export const LATER_CAP_MS = 10 * 60_000;
export const RETRY_AFTER_MAX_MS = 60 * 60_000;
export const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60_000;

export interface RetryDecision {
  giveUp: boolean;
  at: Date;
}

/** `failures`: how many attempts failed, this one included (1 after the first). */
export function nextAttempt(o: {
  failures: number;
  firstDueAt: Date;
  now: Date;
  retryAfterMs?: number;
}): RetryDecision {
  const age = o.now.getTime() - new Date(o.firstDueAt).getTime();
  const cap = age < 60 * 60_000 ? FIRST_HOUR_CAP_MS : LATER_CAP_MS;
  const backOff = Math.min(RETRY_BASE_MS * 2 ** Math.max(o.failures - 1, 0), cap);
  const asked = o.retryAfterMs === undefined ? 0 : Math.min(o.retryAfterMs, RETRY_AFTER_MAX_MS);
  return { giveUp: age >= GIVE_UP_AFTER_MS, at: new Date(o.now.getTime() + Math.max(backOff, asked)) };
}
