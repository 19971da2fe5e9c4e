export {
  type GuestCheckout,
  type GuestCheckoutInput,
  type HostedCardForm,
  InvalidNotificationError,
  type PaymentProvider,
  ProviderError,
  type ProviderErrorKind,
  type ProviderNotification,
  type ProviderPaymentRef,
  type ProviderTransactionState,
  type SilentHoldInput,
} from './payment-provider.js';
export { sandboxProvider } from './sandbox/sandbox-provider.js';
export { withTimeouts } from './with-timeouts.js';
