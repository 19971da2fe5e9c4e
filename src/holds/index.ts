// The guarantee: when an imprint's card is held, the daily job that holds it, the renewal that
// keeps a hold open through a long stay, when a hold lapses, and the SQL only they run. The money
// moves themselves (the provider call, the ledger, the status change) stay in the money path.
export {
  createDeferredPayments,
  type DeferredPaymentsContext,
  type DeferredPaymentsOptions,
  type DeferredPaymentsResult,
} from './create-deferred-payments.ts';
export { type DeferredHoldsRepository, type DueImprint, deferredHoldsRepository } from './deferred-holds-repository.ts';
export {
  CARD_EXPIRES_BEFORE_HOLD,
  type CardExpiry,
  cardExpiresBeforeHold,
  dueCheckins,
  HOLD_DAYS_BEFORE_CHECKIN,
  holdDateFor,
  holdMonthFor,
  noHoldWillBePlaced,
  renewedUntil,
} from './guarantee-dates.ts';
export { type ChainedHold, type HoldFate, holdChainOf } from './hold-chain.ts';
export { decisionDate, lapsesBeforeDecision, renewalDue } from './hold-lapse.ts';
export { holdOperation, holdOperationOn } from './hold-operation.ts';
export {
  type DueRenewal,
  type HoldRenewalsRepository,
  holdRenewalsRepository,
  type RenewalRead,
  type SupersededHold,
} from './hold-renewals-repository.ts';
export { type HoldRepositories, holdRepositories } from './hold-repositories.ts';
export { type RefusedHold, refusedHoldChange, refusedHoldReason } from './refused-hold.ts';
export { type RenewHoldsContext, type RenewHoldsOptions, type RenewHoldsResult, renewHolds } from './renew-holds.ts';
export { renewOperation, renewOperationAt, supersededReleaseOperation } from './renew-operation.ts';
