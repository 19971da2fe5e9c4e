// Payouts: money that reaches the hotel's bank. The provider's report of what it paid out
// (Lyra's JRB file) read, streamed, or Stripe's payouts fetched from its API, its remittances stored and each line matched to the ledger
// by the pure matching rule; the not-paid-out list. One name for the feature: payouts (the
// tables say remittances, the CLI keeps `settlements` as an alias).
export {
  defaultFetchSince,
  FETCH_DAYS_BACK,
  type FetchAllResult,
  type FetchDeps,
  fetchAllStripePayouts,
  fetchStripePayouts,
  NotOnStripe,
} from './fetch-stripe-payouts.ts';
export { type ImportDeps, type ImportResult, importJrb } from './import-jrb.ts';
export { JRB_PROBLEMS_EN, type JrbProblem, type JrbProblemWords, sayJrbProblem } from './jrb-problems.ts';
export { type ByteSource, JRB_VERSIONS, type JrbLine, type JrbRecord, JrbRefused, readJrb } from './jrb-reader.ts';
export {
  type LineMatch,
  type LineToMatch,
  lineAmounts,
  matchLine,
  type RemittableRow,
  type RemittanceDirection,
  UNMATCHED_REASONS,
  type UnmatchedReason,
} from './payout-matching.ts';
export { presentRemittance, tenantProvider } from './present.ts';
export {
  type MonthlyFeesRow,
  type NewRemittanceLine,
  type NotPaidOutRow,
  type PayoutExportRow,
  type RemittanceKey,
  type RemittanceLineRow,
  type RemittanceRow,
  type RemittancesRepository,
  remittancesRepository,
} from './remittances-repository.ts';
