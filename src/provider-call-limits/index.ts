// A room of its own, with nothing but pure arithmetic and no imports: the configuration checks
// the in-doubt grace against these bounds, and it must not load the providers' door (their
// SDKs, the account registry) to do it; the providers build their clients with the same numbers.
export {
  LYRA_REQUESTS_PER_MONEY_CALL,
  longestProviderCallMs,
  lyraRequestTimeoutMs,
  STRIPE_TRIES,
  stripeRequestTimeoutMs,
} from './call-limits.ts';
