/**
 * How long a merchant-initiated hold (the daily job's silent pre-authorisation on a stored
 * card) stays capturable at the card networks a provider works with. Past it the networks
 * lapse the authorisation whatever the hotel's hold length says, so a request must not show a
 * hold as open for longer: its end is the earlier of the two.
 *
 * Lyra (PayZen, Systempay...) acquires through Visa and Mastercard. Visa lets such an
 * authorisation live about 4 days and 18 hours; Lyra's documentation says a manual validation
 * must happen before the authorisation's validity ends (the transaction then becomes EXPIRED)
 * without giving the figure per network, so the shortest known one is used. The sandbox stands
 * in for a provider with no limit of its own: the hotel's hold length applies as it is.
 */
const MERCHANT_HOLD_LIMIT_SECONDS: Readonly<Record<string, number>> = {
  lyra: (4 * 24 + 18) * 3600,
};

/** The network's limit on a hold placed through `provider`, in seconds; null: none beyond the hotel's. */
export function holdLimitSeconds(provider: string): number | null {
  return MERCHANT_HOLD_LIMIT_SECONDS[provider] ?? null;
}

/**
 * The "at most N days" a guest is told of a hold: the hotel's length, or the provider's limit
 * rounded up to whole days when that is shorter (4 days 18 hours is told as 5: still true).
 * `provider`: the tenant's account, or null for one without (the sandbox, or none).
 */
export function holdDaysTold(holdDays: number, provider: string | null): number {
  const limit = provider ? holdLimitSeconds(provider) : null;
  return limit === null ? holdDays : Math.min(holdDays, Math.ceil(limit / 86_400));
}
