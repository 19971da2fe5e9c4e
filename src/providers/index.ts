export {
  type AccountRegistryOptions,
  accountRegistry,
  type LyraSecrets,
  lyraAccountOf,
  type ProviderAccountSource,
} from './account-registry.js';
export { longestProviderCallMs } from './call-limits.js';
export { declineReasonOf } from './decline-reason.js';
export { holdDaysTold, holdValiditySeconds, holdValidityTable } from './hold-validity.js';
export { checkLyraCredentials } from './lyra/index.js';
export { type OrderAccount, orderAcrossAccounts } from './order-across-accounts.js';
export {
  AccountGone,
  type EmbeddedCardForm,
  type GuestCheckout,
  type GuestCheckoutInput,
  type HostedCardForm,
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
} from './payment-provider.js';
export type {
  NotificationReceiver,
  ProviderRegistry,
  TenantProviders,
} from './provider-registry.js';
export { sandboxProvider } from './sandbox/sandbox-provider.js';
export {
  type LedgerBooks,
  type LedgerOperation,
  transactionVerdict,
  type Verdict,
  type VerdictRule,
} from './verdict.js';
export { verdictFor } from './verdict-for.js';
export { ProviderTimeout, withTimeouts } from './with-timeouts.js';
