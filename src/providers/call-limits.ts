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
 * The longest a money call can still be under way after it started: the runner stops waiting
 * at `boundMs`, but a call that timed out goes on (nothing can take back what was sent) until
 * its last request is answered or aborted. The sandbox is bounded by `boundMs`; a Lyra call by
 * its requests' own timeouts, one after the other.
 */
export function longestProviderCallMs(boundMs: number): number {
  return Math.max(boundMs, LYRA_REQUESTS_PER_MONEY_CALL * lyraRequestTimeoutMs(boundMs));
}
