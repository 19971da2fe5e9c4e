// Stripe (API v1, the official SDK): each hotel's own account, its guests on Checkout, its
// holds as off-session PaymentIntents, its webhook events. docs/stripe.md.
export { checkStripeKey, createWebhookEndpoint } from './account-check.ts';
export { type StripeCustomerStore, stripeCustomerStore } from './customer-store.ts';
export { stripeDeclineReason } from './decline-reasons.ts';
export { type StripePayout, type StripePayoutLine, type StripePayoutSource, stripePayoutSource } from './payouts.ts';
export {
  isWebhookSecret,
  modeOfKey,
  STRIPE_API_URL,
  STRIPE_WEBHOOK_EVENTS,
  type StripeAccount,
  type StripeSecrets,
} from './stripe-account.ts';
export { cardTokenOf, claimedOrderOfEvent, type StripeProvider, stripeProvider } from './stripe-provider.ts';
export { stripeVerdict } from './verdict.ts';
export { SIGNATURE_TOLERANCE_S, signatureHeader, signPayload, verifySignature } from './webhook-signature.ts';
