import { badInput, type FakeStore, notFound } from './fake-store.ts';
import { paymentJson, transactionJson } from './wire-shapes.ts';

type Handler = (request: Record<string, unknown>) => unknown;

/**
 * The services of the protocol notes' section 2, each checking the request fields the notes
 * list as key ones (a missing one is INT_902, as joanie's `create_payment_failed.json`).
 */
export function services(store: FakeStore, shopId: string): Record<string, Handler> {
  const tx = (t: Parameters<typeof transactionJson>[0]) => transactionJson(t, shopId);

  return {
    // The echo of `value` is recorded (notes section 2); the `_type` is INVENTED.
    'Charge/SDKTest': (r) => ({ value: r.value ?? null, _type: 'V4/Charge/SDKTest' }),

    'Charge/CreatePayment': (r) => {
      const orderId = text(r.orderId, 'orderId');
      const amount = positive(r.amount, 'amount');
      const currency = currencyOf(r.currency);
      const metadata = stringsOrNull(r.metadata);
      if (r.formAction === 'SILENT') {
        const options = objectOf(objectOf(r.transactionOptions).cardOptions);
        const t = store.silentPayment({
          orderId,
          amount,
          currency,
          token: text(r.paymentMethodToken, 'paymentMethodToken'),
          manualValidation: options.manualValidation === 'YES',
          metadata,
        });
        return paymentJson(t, shopId);
      }
      const formToken = store.issueForm({
        kind: 'payment',
        orderId,
        amount,
        currency,
        metadata,
        customer: objectOf(r.customer),
        ipnTargetUrl: typeof r.ipnTargetUrl === 'string' ? r.ipnTargetUrl : null,
      });
      return { formToken, _type: 'V4/Charge/PaymentForm' };
    },

    'Charge/CreateToken': (r) => {
      const formToken = store.issueForm({
        kind: 'register',
        orderId: text(r.orderId, 'orderId'),
        amount: 0,
        currency: currencyOf(r.currency),
        metadata: stringsOrNull(r.metadata),
        customer: objectOf(r.customer),
        ipnTargetUrl: typeof r.ipnTargetUrl === 'string' ? r.ipnTargetUrl : null,
      });
      return { formToken, _type: 'V4/Charge/PaymentForm' };
    },

    'Transaction/Get': (r) => tx(store.get(r.uuid)),
    'Transaction/Validate': (r) => tx(store.validate(r.uuid, r.comment)),
    'Transaction/Cancel': (r) => tx(store.cancel(r.uuid, r.comment)),
    'Transaction/Update': (r) => {
      const update = objectOf(r.cardUpdate);
      currencyOf(update.currency);
      return tx(store.update(r.uuid, update.amount, r.comment));
    },
    'Transaction/CancelOrRefund': (r) => {
      currencyOf(r.currency);
      const mode = r.resolutionMode ?? 'AUTO';
      if (!['AUTO', 'CANCELLATION_ONLY', 'REFUND_ONLY'].includes(String(mode))) throw badInput('resolutionMode');
      return tx(store.cancelOrRefund(r.uuid, r.amount, mode, r.comment));
    },

    'Order/Get': (r) => {
      const orderId = text(r.orderId, 'orderId');
      const list = store.order(orderId);
      // Lyra answers PSP_010 for an order with no transaction (joanie `is_already_paid_failed.json`).
      if (list.length === 0) throw notFound();
      return { orderId, shopId, transactions: list.map(tx), _type: 'V4/OrderTransactions' };
    },

    // Token/Get's full answer is not recorded; the fields payreq reads are (notes section 2).
    'Token/Get': (r) => {
      const card = store.card(r.paymentMethodToken);
      if (!card) throw badInput('paymentMethodToken');
      return { paymentMethodToken: card.token, cancellationDate: card.cancelledAt, _type: 'V4/Token' };
    },
    'Token/Cancel': (r) => {
      store.cancelCard(r.paymentMethodToken);
      return { responseCode: 0, _type: 'V4/Common/ResponseCodeAnswer' };
    },
  };
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw badInput(field);
  return value;
}

function positive(value: unknown, field: string): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) throw badInput(field);
  return value as number;
}

function currencyOf(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) throw badInput('currency');
  return value;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringsOrNull(value: unknown): Record<string, string> | null {
  const entries = Object.entries(objectOf(value)).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length ? Object.fromEntries(entries) : null;
}
