/** One hotel's own Stripe account, as payreq uses it. */
export interface StripeAccount {
  /** The API's base, `https://api.stripe.com/` unless set (tests point it at a fake). */
  apiUrl: string;
  /** TEST for a test-mode key (`sk_test_`, `rk_test_`), PRODUCTION for a live one. */
  mode: 'TEST' | 'PRODUCTION';
  /** A secret key (`sk_…`) or a restricted key (`rk_…`): the server's, never shown again. */
  secretKey: string;
  /** The `whsec_…` secret Stripe signs the endpoint's events with. */
  webhookSecret: string;
  /** The tenant whose account it is, and the account's version (the customers payreq made there). */
  tenantId: string;
  version: number;
}

/** What `--secrets-stdin` gives for Stripe and the row keeps sealed (the webhook secret once known). */
export interface StripeSecrets {
  secret_key: string;
  webhook_secret: string;
}

/** Stripe's default API host. */
export const STRIPE_API_URL = 'https://api.stripe.com/';

/**
 * The events payreq reads, asked for when it creates its endpoint and listed for an operator
 * who creates it by hand (docs/stripe.md says what each one does).
 */
export const STRIPE_WEBHOOK_EVENTS = [
  'checkout.session.completed',
  'checkout.session.expired',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
  'charge.refunded',
  'refund.updated',
  'refund.failed',
  'charge.expired',
  'charge.dispute.created',
] as const;

/**
 * A key's mode, from its prefix (Stripe: "API keys": `sk_test_`/`sk_live_`, restricted keys
 * `rk_test_`/`rk_live_`); undefined: not a Stripe secret or restricted key.
 */
export function modeOfKey(key: string): StripeAccount['mode'] | undefined {
  const m = /^(?:sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/.exec(key);
  if (!m) return undefined;
  return m[1] === 'live' ? 'PRODUCTION' : 'TEST';
}

/** A `whsec_…` secret, as Stripe hands them out. */
export function isWebhookSecret(secret: string): boolean {
  return /^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(secret);
}
