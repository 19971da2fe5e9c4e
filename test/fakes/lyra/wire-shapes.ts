/**
 * The JSON shapes the fake answers with, trimmed to the fields Lyra's recorded answers carry
 * and payreq (or a reader of the recordings) would look at. Shapes follow the protocol notes'
 * section 3 (envelope, WebServiceError) and section 4 (Payment, Transaction), themselves read
 * from real sandbox answers (openfun/joanie tests/payment/lyra/responses/*.json).
 */

export interface FakeTransaction {
  uuid: string;
  orderId: string | null;
  amount: number;
  currency: string;
  operationType: 'DEBIT' | 'VERIFICATION' | 'CREDIT';
  detailedStatus: string;
  manualValidation: boolean;
  paymentMethodToken: string | null;
  pan: string;
  metadata: Record<string, string> | null;
  parentUuid: string | null;
  creationContext: 'CHARGE' | 'VERIFICATION' | 'REFUND';
  creationDate: string;
  captureDate: string | null;
  refundAmount: number | null;
  errorCode: string | null;
  detailedErrorCode: string | null;
  /** Each `comment` sent with an operation on it: the fake keeps them, Lyra's answers do not show them. */
  comments: string[];
  /**
   * The card network's id of the authorisation (`initialIssuerTransactionIdentifier`, 16 digits
   * as recorded); a registration's is what merchant-initiated payments on its card send back.
   */
  networkTransactionId: string;
}

/** The simple status each detailedStatus implies (notes section 5). */
const SIMPLE_STATUS: Record<string, string> = {
  ACCEPTED: 'PAID',
  AUTHORISED: 'PAID',
  CAPTURED: 'PAID',
  AUTHORISED_TO_VALIDATE: 'RUNNING',
  REFUSED: 'UNPAID',
  CANCELLED: 'UNPAID',
  EXPIRED: 'UNPAID',
};

export function envelope(service: string, status: 'SUCCESS' | 'ERROR', answer: unknown, mode: string) {
  return {
    webService: service,
    version: 'V4',
    applicationVersion: 'fake',
    status,
    answer,
    ticket: ticket(),
    serverDate: new Date().toISOString(),
    applicationProvider: 'LYRA',
    metadata: null,
    mode,
    serverUrl: 'https://fake.lyra.invalid',
    _type: 'V4/WebService/Response',
  };
}

export function serviceError(shopId: string, errorCode: string, errorMessage: string, detailedErrorCode?: string) {
  return {
    errorCode,
    errorMessage,
    detailedErrorCode: detailedErrorCode ?? null,
    detailedErrorMessage: null,
    ticket: 'null',
    shopId,
    _type: 'V4/WebService/WebServiceError',
  };
}

export function transactionJson(t: FakeTransaction, shopId: string, type = 'V4/Transaction') {
  const [expiryMonth, expiryYear] = [12, 2030];
  return {
    shopId,
    uuid: t.uuid,
    amount: t.amount,
    currency: t.currency,
    paymentMethodType: 'CARD',
    paymentMethodToken: t.paymentMethodToken,
    status: SIMPLE_STATUS[t.detailedStatus] ?? 'RUNNING',
    detailedStatus: t.detailedStatus,
    operationType: t.operationType,
    creationDate: t.creationDate,
    errorCode: t.errorCode,
    errorMessage: t.errorCode ? 'fake: see errorCode' : null,
    detailedErrorCode: t.detailedErrorCode,
    detailedErrorMessage: null,
    metadata: t.metadata,
    transactionDetails: {
      effectiveAmount: t.amount,
      effectiveCurrency: t.currency,
      creationContext: t.creationContext,
      cardDetails: {
        paymentSource: 'EC',
        manualValidation: t.manualValidation ? 'YES' : 'NO',
        effectiveBrand: 'CB',
        pan: `${t.pan.slice(0, 6)}XXXXXX${t.pan.slice(-4)}`,
        expiryMonth,
        expiryYear,
        paymentMethodSource: t.operationType === 'VERIFICATION' ? 'NEW' : 'TOKEN',
        captureResponse: {
          refundAmount: t.refundAmount,
          captureDate: t.captureDate,
          _type: 'V4/PaymentMethod/Details/Cards/CardCaptureResponse',
        },
        initialIssuerTransactionIdentifier: t.networkTransactionId,
        _type: 'V4/PaymentMethod/Details/CardDetails',
      },
      parentTransactionUuid: t.parentUuid,
      _type: 'V4/TransactionDetails',
    },
    // A transaction read alone names its order; inside a Payment, the Payment does.
    ...(type === 'V4/Transaction'
      ? { orderDetails: { orderId: t.orderId, orderCurrency: t.currency, mode: 'TEST', _type: 'V4/OrderDetails' } }
      : {}),
    _type: type,
  };
}

/** A Payment: the answer of a SILENT CreatePayment and the `kr-answer` of a notification. */
export function paymentJson(
  t: FakeTransaction,
  shopId: string,
  customer: Record<string, unknown> = {},
  mode: 'TEST' | 'PRODUCTION' = 'TEST',
) {
  const status = SIMPLE_STATUS[t.detailedStatus] ?? 'RUNNING';
  return {
    shopId,
    // Inferred in the notes: an order refused may take another attempt (OPEN); RUNNING too (invented).
    orderCycle: status === 'PAID' ? 'CLOSED' : 'OPEN',
    orderStatus: status,
    serverDate: new Date().toISOString(),
    orderDetails: {
      orderTotalAmount: t.amount,
      orderEffectiveAmount: t.amount,
      orderCurrency: t.currency,
      mode,
      orderId: t.orderId,
      metadata: null,
      _type: 'V4/OrderDetails',
    },
    customer: { ...customer, _type: 'V4/Customer/Customer' },
    transactions: [transactionJson(t, shopId, 'V4/PaymentTransaction')],
    subMerchantDetails: null,
    _type: 'V4/Payment',
  };
}

/** 32 hex characters, no dashes: Lyra's uuids, tokens and tickets. */
export function lyraId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

function ticket(): string {
  return lyraId();
}
