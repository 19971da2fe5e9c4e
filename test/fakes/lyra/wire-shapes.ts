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
  /**
   * `cardDetails.legacyTransId`: the transaction's number in the form API's terms (vads_trans_id),
   * six digits as recorded (`"927516"`, `"948678"` in answers published with Lyra's own samples and
   * PayZen integrations), unique within a shop for a day (vads_trans_id's rule); what the bank
   * reconciliation report calls TRANSACTION_ID. `legacyTransDate` beside it, the transaction's
   * creation date as recorded.
   */
  legacyTransId: string;
  /**
   * A detailedStatus the answers show instead of `detailedStatus` (a state Lyra was seen passing
   * through), until the store settles it; the store's own logic goes by `detailedStatus`.
   */
  shownStatus?: string;
}

/**
 * The simple status each detailedStatus implies. Lyra's REST V4 status reference
 * (docs.lyra.com/en/rest/V4.0/api/kb/status_reference.html, and its Systempay copy): ACCEPTED,
 * AUTHORISED, CAPTURED, PARTIALLY_AUTHORISED are PAID; AUTHORISED_TO_VALIDATE,
 * WAITING_AUTHORISATION, WAITING_AUTHORISATION_TO_VALIDATE are RUNNING; ABANDONED is its own
 * simple status. REFUSED, CANCELLED: UNPAID (joanie's recorded answers). EXPIRED: UNPAID,
 * INFERRED (final, "the cardholder's account will not be debited", vads-trans-status).
 * NOT_CREATED: ABANDONED, INFERRED (PrestaShop `getCancelledStatuses` groups it with ABANDONED).
 * CAPTURE_FAILED: RUNNING, INFERRED (no page gives its simple status; Magento's
 * `convertTransactionType` keeps it with the open authorisations). Any other (UNDER_VERIFICATION,
 * SUSPENDED, the plugins' pending list): RUNNING, as the plugins group them.
 */
const SIMPLE_STATUS: Record<string, string> = {
  ACCEPTED: 'PAID',
  AUTHORISED: 'PAID',
  CAPTURED: 'PAID',
  PARTIALLY_AUTHORISED: 'PAID',
  AUTHORISED_TO_VALIDATE: 'RUNNING',
  WAITING_AUTHORISATION: 'RUNNING',
  WAITING_AUTHORISATION_TO_VALIDATE: 'RUNNING',
  CAPTURE_FAILED: 'RUNNING',
  REFUSED: 'UNPAID',
  CANCELLED: 'UNPAID',
  EXPIRED: 'UNPAID',
  ABANDONED: 'ABANDONED',
  NOT_CREATED: 'ABANDONED',
};

/** The simple status a detailedStatus implies (RUNNING for one not in the table). */
export function simpleStatus(detailedStatus: string): string {
  return SIMPLE_STATUS[detailedStatus] ?? 'RUNNING';
}

/** The detailedStatus a transaction's answers show. */
export function shownStatus(t: FakeTransaction): string {
  return t.shownStatus ?? t.detailedStatus;
}

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
    status: simpleStatus(shownStatus(t)),
    detailedStatus: shownStatus(t),
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
        effectiveBrand: effectiveBrandOf(t.pan),
        pan: `${t.pan.slice(0, 6)}XXXXXX${t.pan.slice(-4)}`,
        expiryMonth,
        expiryYear,
        paymentMethodSource: t.operationType === 'VERIFICATION' ? 'NEW' : 'TOKEN',
        captureResponse: {
          refundAmount: t.refundAmount,
          captureDate: t.captureDate,
          _type: 'V4/PaymentMethod/Details/Cards/CardCaptureResponse',
        },
        legacyTransId: t.legacyTransId,
        legacyTransDate: t.creationDate,
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
  const status = simpleStatus(shownStatus(t));
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

/**
 * The brand a card is processed as. Lyra's test cards (4970 10...) are CB co-badged cards and
 * Lyra's answers for them name CB; another number is given its international brand (INFERRED:
 * what Lyra names for a card outside the CB network is not recorded beyond `VISA`, `MASTERCARD`).
 */
export function effectiveBrandOf(pan: string): string {
  if (pan.startsWith('4970')) return 'CB';
  if (pan.startsWith('4')) return 'VISA';
  if (/^(5[1-5]|2[2-7])/.test(pan)) return 'MASTERCARD';
  return 'CB';
}
