import type Stripe from 'stripe';
import { STRIPE_TRIES } from '../../provider-call-limits/index.ts';
import { type ProviderAnswer, ProviderError } from '../payment-provider.ts';

export type StripeClient = Stripe;

/** Where and how one account's calls go. */
export interface StripeEndpoint {
  apiUrl: string;
  secretKey: string;
  /** Each HTTP request (each try) is abandoned after this long. */
  timeoutMs: number;
}

/** The SDK is loaded on first use: a command that never talks to Stripe does not pay for it. */
let sdk: Promise<typeof import('stripe')> | undefined;

/**
 * The official SDK pointed at the account's API base (host, port and protocol, so a test's
 * fake serves it), with its API version (the one it pins), retries on, telemetry off (it would
 * send the timings of earlier calls with every request).
 */
export async function stripeClient(endpoint: StripeEndpoint): Promise<StripeClient> {
  sdk ??= import('stripe');
  const { default: StripeSdk } = await sdk;
  const url = new URL(endpoint.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new StripeSdk(endpoint.secretKey, {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
    protocol,
    timeout: endpoint.timeoutMs,
    // Retries carry the same Idempotency-Key, so a retry replays the first answer rather than
    // acting twice (Stripe, "Idempotent requests"). One retry: the tries and their pause fit the
    // runner's bound on small bounds too (src/provider-call-limits/).
    maxNetworkRetries: STRIPE_TRIES - 1,
    telemetry: false,
    appInfo: { name: 'payreq' },
  });
}

/** What the SDK's errors carry that payreq reads (StripeError and its subclasses). */
interface SdkError {
  type?: string;
  code?: string;
  decline_code?: string;
  message?: string;
  statusCode?: number;
  payment_intent?: { id?: string; status?: string } | null;
  setup_intent?: { id?: string; status?: string } | null;
}

/** Stripe's messages name a key by its last characters: payreq's logs name none of it. */
function withoutKeys(message: string): string {
  return message.replace(/\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9*]+/g, '(the key)');
}

function sdkError(err: unknown): SdkError | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as Error & SdkError;
  return typeof e.type === 'string' && e.type.startsWith('Stripe') ? e : undefined;
}

/** Stripe's `code` of an error the API answered (`payment_intent_unexpected_state`...), if any. */
export function errorCode(err: unknown): string | undefined {
  return sdkError(err)?.code;
}

/**
 * The reason a card error carries, as payreq stores it: the issuer's `decline_code`, else the
 * error's own `code` (`authentication_required`, `expired_card`...).
 */
export function declineCodeOfError(err: unknown): string | null {
  const e = sdkError(err);
  return e?.decline_code ?? e?.code ?? null;
}

/**
 * A money call's failure in payreq's terms, by Stripe's error types ("Errors" in the API
 * reference; docs.stripe.com/error-low-level):
 * - card_error (402): the bank or Stripe declined: refused, with the PaymentIntent it named;
 * - invalid_request_error (400, 404), authentication_error (401), permission_error (403),
 *   rate_limit_error (429): Stripe refused the request before acting: nothing moved (technical);
 * - api_error (500): "treat the result as indeterminate": in doubt, as is an idempotency_error
 *   (a key reused with other parameters: the first call with it may have acted) and any
 *   connection that failed on every try (the SDK's own retries carry the same key, so only a
 *   call none of whose tries was answered gets here).
 */
export function moneyError(what: string, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = sdkError(err);
  const message = withoutKeys(`stripe ${what}: ${e?.message ?? (err instanceof Error ? err.message : String(err))}`);
  switch (e?.type) {
    case 'StripeCardError':
      return new ProviderError('refused', message, cardAnswer(err));
    case 'StripeInvalidRequestError':
    case 'StripeAuthenticationError':
    case 'StripePermissionError':
    case 'StripeRateLimitError':
      return new ProviderError('technical', message);
    default:
      return new ProviderError('unknown', message);
  }
}

/** A read's failure: whatever happened, nothing moved; a lost answer only means "not now". */
export function readError(what: string, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err.kind === 'unknown' ? new ProviderError('unavailable', err.message) : err;
  const e = sdkError(err);
  const message = withoutKeys(`stripe ${what}: ${e?.message ?? (err instanceof Error ? err.message : String(err))}`);
  return new ProviderError(e?.type === 'StripeInvalidRequestError' ? 'technical' : 'unavailable', message);
}

/** What a card error said of the PaymentIntent (or SetupIntent) it refused, for the ledger row. */
function cardAnswer(err: unknown): ProviderAnswer | undefined {
  const e = sdkError(err);
  const intent = e?.payment_intent ?? e?.setup_intent;
  if (!intent?.id) return undefined;
  return {
    transactionId: intent.id,
    status: intent.status ?? 'requires_payment_method',
    declineCode: declineCodeOfError(err),
  };
}

/**
 * A call Stripe's rate limiter refused (429: "Too many requests", before anything was done;
 * docs.stripe.com/rate-limits recommends trying again with exponential backoff) is tried again
 * with the same key, after a growing, jittered pause, for at most `budgetMs` in all: a hotel
 * whose day has more holds than Stripe takes a second is held over a few seconds, not failed
 * until the next run. What the budget leaves is the 429 itself: technical, nothing done.
 */
export async function paced<T>(call: () => Promise<T>, budgetMs: number): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const pause = Math.min(2_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
      if (sdkError(err)?.type !== 'StripeRateLimitError' || Date.now() - start + pause > budgetMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** An object's id whether the API expanded it or not. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}
