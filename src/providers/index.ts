export {
  type AccountRegistryOptions,
  accountRegistry,
  type LyraSecrets,
  lyraAccountOf,
  type ProviderAccountSource,
  stripeAccountOf,
} from './account-registry.ts';
export { declineReasonOf } from './decline-reason.ts';
export { holdDaysTold, holdValiditySeconds, holdValidityTable } from './hold-validity.ts';
export { checkLyraCredentials } from './lyra/index.ts';
export { type OrderAccount, orderAcrossAccounts } from './order-across-accounts.ts';
export {
  AccountGone,
  type EmbeddedCardForm,
  type GuestCheckout,
  type GuestCheckoutInput,
  type HostedCardForm,
  type HostedPaymentPage,
  IgnoredNotification,
  InvalidNotificationError,
  type MoneyAnswer,
  type MoneyCall,
  type PaymentProvider,
  type ProviderAnswer,
  ProviderError,
  type ProviderErrorKind,
  type ProviderNotification,
  type ProviderOrder,
  type ProviderTransaction,
  type ProviderTransactionKind,
  type ProviderTransactionStatus,
  type SilentHoldCall,
  type TransactionCall,
  UnknownNotificationOrder,
} from './payment-provider.ts';
export type {
  NotificationReceiver,
  ProviderRegistry,
  TenantProviders,
} from './provider-registry.ts';
export { sandboxReport } from './sandbox/report-route.ts';
export { sandboxProvider } from './sandbox/sandbox-provider.ts';
export {
  checkStripeKey,
  createWebhookEndpoint,
  isWebhookSecret,
  modeOfKey,
  STRIPE_API_URL,
  STRIPE_WEBHOOK_EVENTS,
  type StripePayout,
  type StripePayoutLine,
  type StripePayoutSource,
  type StripeSecrets,
  stripeCustomerStore,
} from './stripe/index.ts';
export {
  type LedgerBooks,
  type LedgerOperation,
  transactionVerdict,
  type Verdict,
  type VerdictRule,
} from './verdict.ts';
export { verdictFor } from './verdict-for.ts';
export { ProviderTimeout, withTimeouts } from './with-timeouts.ts';
