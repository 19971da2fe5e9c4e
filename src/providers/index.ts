export {
  type GuestCheckout,
  type GuestCheckoutInput,
  type HostedCardForm,
  InvalidNotificationError,
  type MoneyAnswer,
  type MoneyCall,
  type PaymentProvider,
  ProviderError,
  type ProviderErrorKind,
  type ProviderNotification,
  type ProviderOrder,
  type ProviderTransaction,
  type ProviderTransactionKind,
  type ProviderTransactionStatus,
  type SilentHoldCall,
  type TransactionCall,
} from './payment-provider.js';
export { type ProviderRegistry, singleProviderRegistry } from './provider-registry.js';
export { sandboxProvider } from './sandbox/sandbox-provider.js';
export { ProviderTimeout, withTimeouts } from './with-timeouts.js';
