import { batchCalls, type Database, type Queryable } from '../../db/index.ts';
import {
  type GuestCheckoutInput,
  type HostedCardForm,
  InvalidNotificationError,
  type MoneyAnswer,
  type PaymentProvider,
  ProviderError,
  type ProviderNotification,
  type ProviderOrder,
  type TransactionCall,
} from '../payment-provider.ts';
import { checkoutKey, newAttempt, signCheckout } from './checkout-signature.ts';
import { IPN_SIGNATURE_HEADER, ipnKey, ipnSignatureValid } from './ipn-signature.ts';
import { readIpnBody } from './notification-body.ts';
import {
  type HoldRequest,
  type Operation,
  type SandboxStore,
  type SandboxTransaction,
  sandboxStore,
} from './sandbox-store.ts';
import { decide, LATER_HOLDS_REFUSED, REFUSAL_REASONS, TEST_CARDS } from './test-cards.ts';

/** The cards that fail technically: the hold's SQL writes nothing for them. */
const FAILING = [TEST_CARDS.technicalError];
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
  // The holds asked while the loop was busy, by one statement: a real provider's servers take
  // concurrent calls in parallel, while the sandbox's ledger shares the service's database
  // (with embedded PGlite, its single thread), where one statement for sixteen holds costs
  // little more than one for one. No limit of groups under way, as calls to a provider have
  // none; a failed statement fails every hold of its group (the job counts them as technical
  // failures and the next run tries again).
  const placeHold = batchCalls(
    async (requests: readonly HoldRequest[]) =>
      (
        await store.holdsOnCards(requests, {
          refused: REFUSAL_REASONS,
          laterHoldsRefused: LATER_HOLDS_REFUSED,
          failing: FAILING,
        })
      ).map((value) => ({ status: 'fulfilled' as const, value })),
    { maxGroup: HOLD_GROUP, inFlight: Number.POSITIVE_INFINITY },
  );

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
          merchant_name: input.merchantName,
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

    // The sandbox sends the guest back with a plain redirect: nothing signed to read.
    readBrowserReturn: () => undefined,

    async silentHold(call) {
      const hold = await placeHold({
        token: call.cardToken,
        orderId: call.orderId,
        amount: call.amountCents,
        currency: call.currency,
        key: call.idempotencyKey,
        ...(call.at ? { at: call.at } : {}),
        ...(call.reason ? { reason: call.reason } : {}),
      });
      if (!hold) throw new ProviderError('technical', 'sandbox: unknown card token');
      // The vault's answer: a card refused on every hold, or on every hold after its first.
      if (hold.decline_code) {
        const reason = hold.decline_code;
        throw new ProviderError(
          'refused',
          `sandbox: the bank refused the hold (${reason})`,
          hold.transaction_id
            ? { transactionId: hold.transaction_id, status: 'refused', declineCode: reason }
            : undefined,
        );
      }
      if (decide(hold.card_number, 'charge') === 'error') {
        throw new ProviderError('technical', 'sandbox: technical error on the hold');
      }
      if (!hold.transaction_id) throw new ProviderError('technical', 'sandbox: the hold was not recorded');
      return {
        transactionId: hold.transaction_id,
        ...(hold.legacy_trans_id ? { legacyTransId: hold.legacy_trans_id } : {}),
      };
    },

    capture: (call) =>
      operate(store, call, 'capture', call.amountCents, (q) =>
        store.capture(q, call.transactionId, call.orderId, call.amountCents),
      ),

    release: (call) => operate(store, call, 'release', 0, (q) => store.release(q, call.transactionId, call.orderId)),

    refund: (call) =>
      operate(store, call, 'refund', call.amountCents, (q) =>
        store.refund(q, call.transactionId, call.orderId, call.amountCents),
      ),

    void: (call) => operate(store, call, 'void', 0, (q) => store.void(q, call.transactionId, call.orderId)),

    async getOrder(orderId): Promise<ProviderOrder> {
      const rows = await store.order(orderId);
      return {
        orderId,
        keysKept: true,
        transactions: rows.map((t) => ({
          id: t.id,
          kind: t.kind,
          // A hold past its end is gone, as a provider shows a lapsed authorisation.
          status: t.lapsed ? 'cancelled' : t.status,
          providerStatus: t.lapsed ? 'expired' : t.status,
          declineCode: t.decline_code,
          amount: t.amount,
          capturedAmount: t.captured_amount,
          refundedAmount: t.refunded_amount,
          currency: t.currency,
          parentId: t.parent_id,
          keys: t.keys,
          createdAt: t.created_at,
        })),
      };
    },
  };
}

/** One keyed operation; a refusal says why, as the provider would. */
async function operate(
  store: SandboxStore,
  call: TransactionCall,
  operation: Operation,
  amount: number,
  move: (q: Queryable) => Promise<string | undefined>,
): Promise<MoneyAnswer> {
  const result = await store.operate(
    {
      key: call.idempotencyKey,
      orderId: call.orderId,
      operation,
      transactionId: call.transactionId,
      amount,
      ...(call.at ? { at: call.at } : {}),
    },
    move,
  );
  if (result.done) {
    return {
      transactionId: result.transactionId,
      ...(result.legacyTransId ? { legacyTransId: result.legacyTransId } : {}),
    };
  }
  throw await refusal(store, call, operation, amount, result.reason);
}

/** Why a conditional update moved nothing, said as the provider would say it. */
async function refusal(
  store: SandboxStore,
  call: TransactionCall,
  action: Operation,
  amountCents: number,
  reason: string | undefined,
): Promise<ProviderError> {
  const id = call.transactionId;
  const no = (why: string) => new ProviderError('refused', `sandbox: cannot ${action} ${id}: ${why}`);
  if (reason) return no(reason);
  const t: SandboxTransaction | undefined = await store.findTransaction(id);
  if (!t || t.order_id !== call.orderId) return no('no such transaction for this order');
  if (action === 'refund') {
    if (t.kind !== 'payment' && t.kind !== 'hold') return no(`a ${t.kind} cannot be refunded`);
    if (t.status !== 'captured') return no(`it is ${t.status}, not captured`);
    return no(`${amountCents} is not above 0 and within the ${t.captured_amount - t.refunded_amount} left to refund`);
  }
  if (action === 'void') return no(`a ${t.status} ${t.kind} cannot be voided`);
  if (t.kind !== 'hold') return no(`it is a ${t.kind}, not a hold`);
  if (t.status !== 'authorised') return no(`the hold is ${t.status}`);
  if (t.lapsed) return no(`the hold lapsed at ${t.expires_at ? new Date(t.expires_at).toISOString() : 'its end'}`);
  return no(`${amountCents} is not above 0 and within the held ${t.amount}`);
}
