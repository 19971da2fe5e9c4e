/**
 * How long a call to the payment provider can last, from the one setting that bounds it
 * (PROVIDER_TIMEOUT_MS). Pure: the configuration checks the in-doubt grace against it, the
 * registry builds the providers with it.
 */

/**
 * Lyra's own timeout for each HTTP request stays below the runner's bound, so a late call is
 * really abandoned (fetch aborted) rather than forgotten while still under way.
 */
export function lyraRequestTimeoutMs(boundMs: number): number {
  return Math.max(1, Math.min(10_000, Math.floor(boundMs * 0.9)));
}

/**
 * The most HTTP requests one Lyra money call makes one after the other: a partial capture
 * reads the transaction, lowers its amount, then validates it.
 */
export const LYRA_REQUESTS_PER_MONEY_CALL = 3;

/**
 * The tries of one Stripe request, the first included: the SDK tries again after a lost
 * connection, a 409 or a 5xx, with the same Idempotency-Key (stripe/client.ts).
 */
export const STRIPE_TRIES = 2;

/**
 * The SDK's pause before each retry: at least its initial delay, 0.5 s, and no more than that
 * for the first two retries (stripe-node's RequestSender, `_getSleepTimeInMS`).
 */
const STRIPE_RETRY_PAUSE_MS = 500;

/**
 * Each try of a Stripe request: the tries and the time given to Stripe's rate limiter (a 429
 * is tried again, paced, for at most one try's length) share Lyra's part of the bound, so a
 * Stripe call that times out in the runner is over soon after.
 */
export function stripeRequestTimeoutMs(boundMs: number): number {
  return Math.max(1, Math.floor(lyraRequestTimeoutMs(boundMs) / (STRIPE_TRIES + 1)));
}

/**
 * The longest a money call can still be under way after it started: the runner stops waiting
 * at `boundMs`, but a call that timed out goes on (nothing can take back what was sent) until
 * its last request is answered or aborted. The sandbox is bounded by `boundMs`; a Lyra call by
 * its requests' own timeouts, one after the other; a Stripe call by its tries, the pause
 * between them, the time a 429 is tried again, and a hold's read of its charge when the answer
 * did not carry it.
 */
export function longestProviderCallMs(boundMs: number): number {
  // Its tries, the rate limiter's share, a hold's charge read, the pause between the tries.
  const stripe = (STRIPE_TRIES + 2) * stripeRequestTimeoutMs(boundMs) + (STRIPE_TRIES - 1) * STRIPE_RETRY_PAUSE_MS;
  return Math.max(boundMs, LYRA_REQUESTS_PER_MONEY_CALL * lyraRequestTimeoutMs(boundMs), stripe);
}
