export {
  addDays,
  createDeferredPayments,
  DAYS_AHEAD,
  type DeferredPaymentsContext,
  type DeferredPaymentsOptions,
  type DeferredPaymentsResult,
} from './create-deferred-payments.js';
