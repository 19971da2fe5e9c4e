import type { Database } from '../../db/index.js';
import {
  type GuestCheckoutInput,
  type HostedCardForm,
  InvalidNotificationError,
  type PaymentProvider,
  ProviderError,
  type ProviderNotification,
  type ProviderPaymentRef,
} from '../payment-provider.js';
import { checkoutKey, newAttempt, signCheckout } from './checkout-signature.js';
import { coalesce } from './coalesce.js';
import { IPN_SIGNATURE_HEADER, ipnKey, ipnSignatureValid } from './ipn-signature.js';
import { readIpnBody } from './notification-body.js';
import { type HoldRequest, type SandboxStore, type SandboxTransaction, sandboxStore } from './sandbox-store.js';
import { decide, TEST_CARDS } from './test-cards.js';

/** The cards `decide` does not accept: the hold's SQL writes no ledger row for them. */
const DECLINED = [TEST_CARDS.refused, TEST_CARDS.technicalError];
/** Holds written to the ledger by one statement at most: the job has 16 calls in flight. */
const HOLD_GROUP = 64;

export interface SandboxOptions {
  db: Database;
  /** SECRET_KEY: the checkout and IPN signing keys are derived from it. */
  secretKey: string;
  /** The service's public address; the sandbox's pages live under `/sandbox/` there. */
  publicBaseUrl: string;
}

export const SANDBOX_PAY_PATH = '/sandbox/pay';

/**
 * The sandbox as the service sees it: a provider reached through this interface only, as if
 * it were external. Its guest-facing half is the card page (sandbox-routes.ts); both keep
 * their state in the sandbox_* tables.
 */
export function sandboxProvider(opts: SandboxOptions): PaymentProvider {
  const store = sandboxStore(opts.db);
  const formKey = checkoutKey(opts.secretKey);
  const notificationKey = ipnKey(opts.secretKey);
  const placeHold = coalesce((requests: readonly HoldRequest[]) => store.holdsOnCards(requests, DECLINED), HOLD_GROUP);

  return {
    name: 'sandbox',

    async startGuestPayment(input: GuestCheckoutInput): Promise<HostedCardForm> {
      const fields = newAttempt(
        {
          order_id: input.paymentRequestId,
          reference: input.reference,
          request_type: input.requestType,
          amount: String(input.amountCents),
          currency: input.currency,
          language: input.language,
          merchant_name: (input as GuestCheckoutInput & { merchantName?: string }).merchantName ?? '',
          return_url: input.returnUrl,
          notify_url: input.notifyUrl,
        },
        new Date(),
      );
      return {
        kind: 'card-form',
        action: `${opts.publicBaseUrl}${SANDBOX_PAY_PATH}`,
        hiddenFields: { ...fields, signature: signCheckout(formKey, fields) },
      };
    },

    parseNotification(rawBody, headers): ProviderNotification {
      if (!ipnSignatureValid(notificationKey, rawBody, headers[IPN_SIGNATURE_HEADER])) {
        throw new InvalidNotificationError('missing or bad signature');
      }
      return readIpnBody(rawBody);
    },

    async silentHold(input) {
      const hold = await placeHold({
        token: input.cardToken,
        orderId: input.paymentRequestId,
        amount: input.amountCents,
        currency: input.currency,
      });
      if (!hold) throw new ProviderError('technical', 'sandbox: unknown card token');
      const decision = decide(hold.card_number);
      if (decision === 'refused') throw new ProviderError('refused', 'sandbox: the bank refused the hold');
      if (decision === 'error') throw new ProviderError('technical', 'sandbox: technical error on the hold');
      if (!hold.transaction_id) throw new ProviderError('technical', 'sandbox: the hold was not recorded');
      return { transactionId: hold.transaction_id };
    },

    async capture(ref, amountCents) {
      const id = requireTransaction(ref, 'capture');
      if (await store.capture(id, ref.paymentRequestId, amountCents)) return;
      throw await refusal(store, ref, id, 'capture', amountCents);
    },

    async release(ref) {
      const id = requireTransaction(ref, 'release');
      if (await store.release(id, ref.paymentRequestId)) return;
      throw await refusal(store, ref, id, 'release');
    },

    async getPayment(ref) {
      if (!ref.transactionId) return undefined;
      const t = await store.findTransaction(ref.transactionId);
      if (!t || t.order_id !== ref.paymentRequestId) return undefined;
      return {
        transactionId: t.id,
        status: t.status === 'accepted' ? 'registered' : t.status,
        amountCents: t.amount,
        capturedCents: t.captured_amount,
        refundedCents: t.refunded_amount,
      };
    },

    async refund(ref, amountCents) {
      const id = requireTransaction(ref, 'refund');
      if (await store.refund(id, ref.paymentRequestId, amountCents)) return;
      throw await refusal(store, ref, id, 'refund', amountCents);
    },
  };
}

function requireTransaction(ref: ProviderPaymentRef, action: string): string {
  if (!ref.transactionId) throw new ProviderError('refused', `sandbox: nothing to ${action}, no transaction given`);
  return ref.transactionId;
}

/** Why a conditional update moved nothing, said as the provider would say it. */
async function refusal(
  store: SandboxStore,
  ref: ProviderPaymentRef,
  id: string,
  action: 'capture' | 'release' | 'refund',
  amountCents?: number,
): Promise<ProviderError> {
  const t: SandboxTransaction | undefined = await store.findTransaction(id);
  const no = (why: string) => new ProviderError('refused', `sandbox: cannot ${action} ${id}: ${why}`);
  if (!t || t.order_id !== ref.paymentRequestId) return no('no such transaction for this order');
  if (action === 'refund') {
    if (t.kind !== 'payment' && t.kind !== 'hold') return no(`a ${t.kind} cannot be refunded`);
    if (t.status !== 'captured') return no(`it is ${t.status}, not captured`);
    return no(`${amountCents} is not above 0 and within the ${t.captured_amount - t.refunded_amount} left to refund`);
  }
  if (t.kind !== 'hold') return no(`it is a ${t.kind}, not a hold`);
  if (t.status !== 'authorised') return no(`the hold is ${t.status}`);
  return no(`${amountCents} is not above 0 and within the held ${t.amount}`);
}
