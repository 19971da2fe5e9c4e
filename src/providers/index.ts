export {
  type PaymentProvider,
  ProviderError,
  type ProviderErrorKind,
  type ProviderPaymentRef,
} from './payment-provider.js';
export { sandboxProvider } from './sandbox-provider.js';
