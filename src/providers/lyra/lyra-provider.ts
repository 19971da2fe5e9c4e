import {
  type EmbeddedCardForm,
  type GuestCheckoutInput,
  type MoneyAnswer,
  type MoneyCall,
  type PaymentProvider,
  ProviderError,
  type ProviderOrder,
  type ProviderTransaction,
} from '../payment-provider.ts';
import { type LyraAnswer, LyraServiceError, lyraClient } from './client.ts';
import { type LyraTransaction, readTransaction } from './lyra-transaction.ts';
import {
  declineCodeOf,
  fromLyraAmount,
  isRefusal,
  toLyraAmount,
  transactionKind,
  transactionStatus,
} from './mapping.ts';
import { parseLyraNotification, verifyBrowserReturn } from './notification.ts';

/** One hotel's merchant account with a Lyra brand (PayZen, Systempay, Sogecommerce...). */
export interface LyraAccount {
  shopId: string;
  /** The brand's REST base, e.g. `https://api.payzen.eu/api-payment/`. */
  apiUrl: string;
  /** Where the brand serves its JS card form, e.g. `https://static.payzen.eu/static/`. */
  staticUrl?: string;
  mode: 'TEST' | 'PRODUCTION';
  /** Basic-auth password of the mode; also the key of the notifications' signature. */
  password: string;
  /** `shopId:testpublickey_…`: the browser's JS client, never the server. */
  publicKey: string;
  /** Signs the browser's return to the result page. */
  hmacKey: string;
}

/** A Lyra call that should have answered in time: below the runner's own bound, so fetch is really aborted. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** `transaction not found`: also Order/Get's answer for an order with no transaction. */
const ORDER_NOT_FOUND = 'PSP_010';

/**
 * Lyra's answers for a card token it does not know or no longer accepts (token invalid,
 * unknown, cancelled): the card must be registered again on this account.
 */
const TOKEN_ERRORS: ReadonlySet<string> = new Set(['PSP_030', 'PSP_031', 'PSP_561', 'PSP_607']);

/** Metadata and comments are where Lyra keeps a merchant's words with a transaction. */
const KEY_FIELD = 'payreq_key';

export function lyraProvider(account: LyraAccount, opts: { timeoutMs?: number } = {}): PaymentProvider {
  const client = lyraClient({
    apiUrl: account.apiUrl,
    shopId: account.shopId,
    password: account.password,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

  /** A read changed nothing: a lost answer only means "not now". */
  const read = async (service: string, body: Record<string, unknown>): Promise<LyraAnswer> => {
    try {
      return await client.call(service, body);
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'unknown') throw new ProviderError('unavailable', err.message);
      throw err;
    }
  };

  const getTransaction = async (uuid: string): Promise<LyraTransaction> =>
    transactionOf('Transaction/Get', await read('Transaction/Get', { uuid }), 'unavailable');

  return {
    name: 'lyra',

    /**
     * IMPRINT: a form token that saves the card without debit (CreateToken, REGISTER); DEPOSIT: a
     * form token that pays now (CreatePayment). Lyra's JS client draws the form for that token on
     * the guest page, its card fields in frames of Lyra's origin: the card goes from the guest's
     * browser to Lyra, never to payreq.
     */
    async startGuestPayment(input: GuestCheckoutInput): Promise<EmbeddedCardForm> {
      const common = {
        currency: input.currency,
        orderId: input.paymentRequestId,
        customer: { email: input.guestEmail, reference: input.reference },
        ipnTargetUrl: input.notifyUrl,
        metadata: { payreq_reference: input.reference },
      };
      const answer =
        input.requestType === 'IMPRINT'
          ? await read('Charge/CreateToken', {
              ...common,
              formAction: 'REGISTER',
              strongAuthentication: 'CHALLENGE_REQUESTED',
            })
          : await read('Charge/CreatePayment', {
              ...common,
              amount: lyraAmount(input.amountCents, input.currency),
              formAction: 'PAYMENT',
            });
      const formToken = answer.formToken;
      if (typeof formToken !== 'string' || formToken === '') {
        throw new ProviderError('technical', 'lyra: the answer carries no formToken');
      }
      const client = clientUrls(account);
      return {
        kind: 'embedded-form',
        formToken,
        publicKey: account.publicKey,
        scriptUrl: client.script,
        themeStylesheetUrl: client.themeStylesheet,
        themeScriptUrl: client.themeScript,
        successUrl: input.returnUrl,
        languageTag: LANGUAGE_TAGS[input.language],
      };
    },

    parseNotification: (rawBody) => parseLyraNotification(rawBody, account.password),

    readBrowserReturn: (rawBody) => verifyBrowserReturn(rawBody, account.hmacKey),

    /**
     * A merchant-initiated payment with the saved card (SILENT), held for our validation:
     * the full amount is authorised now (captureDelay 0) and only taken when we Validate.
     */
    async silentHold(call) {
      let answer: LyraAnswer;
      try {
        answer = await client.call('Charge/CreatePayment', {
          amount: lyraAmount(call.amountCents, call.currency),
          currency: call.currency,
          orderId: call.orderId,
          formAction: 'SILENT',
          paymentMethodToken: call.cardToken,
          transactionOptions: {
            cardOptions: {
              manualValidation: 'YES',
              captureDelay: 0,
              paymentSource: 'EC',
              ...(call.initialIssuerTransactionId
                ? { initialIssuerTransactionIdentifier: call.initialIssuerTransactionId }
                : {}),
            },
          },
          metadata: keyed(call),
        });
      } catch (err) {
        // The card's token is not known to this account (or no longer valid): no hold can ever
        // be placed with it here. The guest must register the card again: a failed guarantee.
        if (err instanceof LyraServiceError && TOKEN_ERRORS.has(err.errorCode)) {
          throw new ProviderError('refused', `${err.message}: the card's token is not valid on this account`);
        }
        throw err;
      }
      const transactions = answer.transactions;
      const t = transactionOf(
        'Charge/CreatePayment',
        Array.isArray(transactions) && transactions.length === 1 ? transactions[0] : undefined,
        'unknown',
      );
      const status = transactionStatus(t);
      if (status === 'authorised') return moneyAnswer(t);
      // Money taken where a hold was asked (a shop that captures whatever the call says): never
      // kept as a hold. Cancelled before the nightly batch, it is a refusal the hotel can read.
      if (status === 'captured') return cancelTakenHold(call, t);
      // A refusal comes inside a SUCCESS envelope, as an UNPAID transaction.
      return failUnlessDone('silent hold', t, []);
    },

    /** Validate captures a held transaction whole: a partial capture lowers the amount first. */
    async capture(call) {
      const held = await getTransaction(call.transactionId);
      const amount = lyraAmount(call.amountCents, call.currency);
      const state = transactionStatus(held);
      // Asked again after a lost answer: already validated at this amount is done, not an error.
      if (state === 'captured' && held.amount === amount) return moneyAnswer(held);
      // Lyra is still deciding: nothing was sent, ask again later.
      if (state === 'in_flight' || state === 'unknown') {
        throw new ProviderError('technical', `lyra: cannot capture ${held.uuid} now: it is ${held.detailedStatus}`);
      }
      if (state !== 'authorised') {
        throw new ProviderError('refused', `lyra: cannot capture ${held.uuid}: it is ${held.detailedStatus}`);
      }
      if (amount <= 0 || amount > held.amount) {
        throw new ProviderError('refused', `lyra: cannot capture ${amount} of a hold of ${held.amount}`);
      }
      const lowered = amount < held.amount;
      if (lowered) {
        const updated = await money('Transaction/Update', {
          uuid: held.uuid,
          cardUpdate: { amount, currency: call.currency },
          comment: comment(call),
        });
        failUnlessDone('lower the hold', updated, ['authorised']);
      }
      try {
        const validated = await money('Transaction/Validate', { uuid: held.uuid, comment: comment(call) });
        return failUnlessDone('capture', validated, ['captured']);
      } catch (err) {
        // Two steps: the hold is lowered at Lyra already, so "nothing moved" is no longer true
        // whatever Validate answered. In doubt until the order view shows it captured or not.
        if (!lowered || !(err instanceof ProviderError) || err.kind === 'unknown') throw err;
        throw new ProviderError('unknown', `lyra capture: hold ${held.uuid} lowered to ${amount}, then ${err.message}`);
      }
    },

    async release(call) {
      const t = await money('Transaction/Cancel', { uuid: call.transactionId, comment: comment(call) });
      return failUnlessDone('release', t, ['cancelled']);
    },

    /**
     * One call cancels or refunds (AUTO): a payment not yet sent to the bank is cancelled or
     * lowered (same transaction), one already captured gets a new CREDIT transaction, which the
     * bank may refuse. The payment is read first, so a lowered payment is checked to have
     * fallen by the amount asked.
     */
    async refund(call): Promise<MoneyAnswer> {
      const before = await getTransaction(call.transactionId);
      const amount = lyraAmount(call.amountCents, call.currency);
      const t = await money('Transaction/CancelOrRefund', {
        uuid: call.transactionId,
        amount,
        currency: call.currency,
        resolutionMode: 'AUTO',
        comment: comment(call),
      });
      if (t.operationType === 'CREDIT') return failUnlessDone('refund', t, ['refunded']);
      const status = transactionStatus(t);
      const fell =
        t.uuid === before.uuid &&
        ((status === 'cancelled' && before.amount === amount) ||
          (status === 'captured' && t.amount === before.amount - amount));
      if (fell) return moneyAnswer(t);
      if (status === 'captured' || status === 'cancelled') {
        throw new ProviderError(
          'unknown',
          `lyra refund: ${t.uuid} is ${t.detailedStatus} at ${t.amount}, was ${before.amount}, refund ${amount}`,
          answerOf(t),
        );
      }
      return failUnlessDone('refund', t, []);
    },

    /**
     * A hold is cancelled like a release. A verification moved no money: what makes the saved
     * card unusable is cancelling its token.
     */
    async void(call) {
      const t = await getTransaction(call.transactionId);
      if (transactionKind(t) === 'verification') {
        if (!t.paymentMethodToken) throw new ProviderError('refused', `lyra: verification ${t.uuid} saved no card`);
        const answer = await client.call('Token/Cancel', { paymentMethodToken: t.paymentMethodToken });
        // The answer is a V4/Common/ResponseCodeAnswer: 0 is done.
        if (answer.responseCode !== 0) throw new ProviderError('unknown', 'lyra Token/Cancel: no responseCode 0');
        return { transactionId: t.uuid, ...(t.legacyTransId ? { legacyTransId: t.legacyTransId } : {}) };
      }
      const cancelled = await money('Transaction/Cancel', { uuid: t.uuid, comment: comment(call) });
      return failUnlessDone('void', cancelled, ['cancelled']);
    },

    async getOrder(orderId): Promise<ProviderOrder> {
      let answer: LyraAnswer;
      try {
        answer = await read('Order/Get', { orderId });
      } catch (err) {
        // Lyra's answer for an order it has no transaction of: nothing happened on it.
        if (err instanceof LyraServiceError && err.errorCode === ORDER_NOT_FOUND) {
          return { orderId, transactions: [], keysKept: false };
        }
        throw err;
      }
      const list = answer.transactions;
      if (!Array.isArray(list)) throw new ProviderError('unavailable', 'lyra Order/Get: no transaction list');
      const lyra = list.map((x) => transactionOf('Order/Get', x, 'unavailable'));
      const transactions = await Promise.all(lyra.map((t) => viewOf(t, lyra, read)));
      // Lyra echoes the metadata of the call that created a transaction, but not the comment of
      // a Validate, Cancel or refund: an operation whose key is not shown may still have happened.
      return { orderId, transactions, keysKept: false };
    },
  };

  /**
   * A silent hold Lyra took as a payment (captured at the nightly batch): cancelled at once, and
   * answered as a refusal naming why. If the cancel does not answer CANCELLED, the money may be
   * taken: in doubt, for reconcile and an operator.
   */
  async function cancelTakenHold(call: MoneyCall, t: LyraTransaction): Promise<never> {
    const why = `lyra silent hold: ${t.uuid} is ${t.detailedStatus}, captured automatically (the shop ignores manual validation)`;
    let cancelled: LyraTransaction;
    try {
      cancelled = await money('Transaction/Cancel', { uuid: t.uuid, comment: comment(call) });
    } catch (err) {
      throw new ProviderError('unknown', `${why}; its cancel failed: ${(err as Error).message}`, answerOf(t));
    }
    if (transactionStatus(cancelled) !== 'cancelled') {
      throw new ProviderError('unknown', `${why}; cancel answered ${cancelled.detailedStatus}`, answerOf(cancelled));
    }
    throw new ProviderError('refused', `${why}; cancelled`, answerOf(cancelled));
  }

  async function money(service: string, body: Record<string, unknown>): Promise<LyraTransaction> {
    return transactionOf(service, await client.call(service, body), 'unknown');
  }
}

/**
 * Whether an account's shop id, password and API URL work, before anyone relies on them:
 * `Charge/SDKTest` echoes a value only for valid credentials. Throws a ProviderError that
 * says what failed (bad credentials are technical; an unreachable host unavailable).
 */
export async function checkLyraCredentials(
  account: Pick<LyraAccount, 'apiUrl' | 'shopId' | 'password'>,
  opts: { timeoutMs?: number } = {},
): Promise<void> {
  const client = lyraClient({ ...account, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  const value = `payreq-${Date.now()}`;
  const answer = await client.call('Charge/SDKTest', { value });
  if (answer.value !== value) throw new ProviderError('technical', 'lyra Charge/SDKTest: the value did not come back');
}

/** Lyra's JS client takes a language tag. */
const LANGUAGE_TAGS: Record<GuestCheckoutInput['language'], string> = { fr: 'fr-FR', en: 'en-GB', de: 'de-DE' };

/**
 * Where the brand serves its embedded form: most brands from the API host's `/static/`, PayZen
 * Europe from its own static host, hence the account's optional static URL.
 */
export function staticBase(account: Pick<LyraAccount, 'apiUrl' | 'staticUrl'>): string {
  const base =
    account.staticUrl ??
    new URL('../static/', account.apiUrl.endsWith('/') ? account.apiUrl : `${account.apiUrl}/`).href;
  return base.endsWith('/') ? base : `${base}/`;
}

/**
 * The embedded form's script and its "neon" theme (a reset stylesheet and a script), as Lyra's
 * published integrations load them from the static base.
 */
export function clientUrls(account: Pick<LyraAccount, 'apiUrl' | 'staticUrl'>) {
  const base = staticBase(account);
  return {
    script: new URL('js/krypton-client/V4.0/stable/kr-payment-form.min.js', base).href,
    themeStylesheet: new URL('js/krypton-client/V4.0/ext/neon-reset.min.css', base).href,
    themeScript: new URL('js/krypton-client/V4.0/ext/neon.js', base).href,
  };
}

function keyed(call: MoneyCall): Record<string, string> {
  return { [KEY_FIELD]: call.idempotencyKey, payreq_reference: call.reference };
}

function comment(call: MoneyCall): string {
  return `payreq ${call.reference} ${KEY_FIELD}=${call.idempotencyKey}`;
}

function lyraAmount(hundredths: number, currency: string): number {
  const amount = toLyraAmount(hundredths, currency);
  if (amount === undefined)
    throw new ProviderError('technical', `lyra: ${hundredths}/100 ${currency} has no exact amount`);
  return amount;
}

/** An answer that is not a readable transaction proves nothing: in doubt for a money call. */
function transactionOf(service: string, value: unknown, kind: 'unknown' | 'unavailable'): LyraTransaction {
  const t = readTransaction(value);
  if (!t) throw new ProviderError(kind, `lyra ${service}: the answer is not a readable transaction`);
  return t;
}

/** What Lyra's answer said of a transaction, for the ledger row. */
function answerOf(t: LyraTransaction) {
  return { transactionId: t.uuid, status: t.detailedStatus, declineCode: declineCodeOf(t) };
}

/** A transaction as a money call's answer: its uuid, its status, and its short number where Lyra gave one. */
function moneyAnswer(t: LyraTransaction): MoneyAnswer {
  return {
    transactionId: t.uuid,
    status: t.detailedStatus,
    ...(t.legacyTransId ? { legacyTransId: t.legacyTransId } : {}),
  };
}

/** The transaction's answer when its status is one of `done`; otherwise the error it means. */
function failUnlessDone(what: string, t: LyraTransaction, done: readonly string[]): MoneyAnswer {
  const status = transactionStatus(t);
  if (done.includes(status)) return moneyAnswer(t);
  const why = `lyra ${what}: ${t.uuid} is ${t.detailedStatus}${t.errorCode ? ` (${declineCodeOf(t)})` : ''}`;
  if (isRefusal(t)) throw new ProviderError('refused', why, answerOf(t));
  // Lyra is still deciding, or says something this adapter's table does not know, or a state
  // that is not what was asked: what happened is for reconcile to read in the order view,
  // never "nothing moved" by guess.
  if (status === 'in_flight' || status === 'unknown' || (status !== 'refused' && status !== 'error')) {
    throw new ProviderError('unknown', why, answerOf(t));
  }
  // A technical failure (ACQ_999, a transaction never created): nothing moved.
  throw new ProviderError('technical', why, answerOf(t));
}

/** One transaction as payreq sees it; a state the table does not settle makes the view unavailable. */
async function viewOf(
  t: LyraTransaction,
  all: readonly LyraTransaction[],
  read: (service: string, body: Record<string, unknown>) => Promise<LyraAnswer>,
): Promise<ProviderTransaction> {
  const kind = transactionKind(t);
  let status = transactionStatus(t);
  if (!kind) throw new ProviderError('unavailable', `lyra: ${t.uuid} is a ${t.operationType}, an operation not known`);
  const amount = amountOf(t);
  const taken = kind === 'payment' || kind === 'hold' ? status === 'captured' : false;
  const refundedAmount = taken
    ? all
        .filter((c) => c.operationType === 'CREDIT' && c.parentUuid === t.uuid && transactionStatus(c) === 'refunded')
        .reduce((sum, c) => sum + amountOf(c), 0)
    : 0;
  if (taken && refundedAmount >= amount) status = 'refunded';
  if (kind === 'verification' && status === 'accepted' && t.paymentMethodToken) {
    // A token Lyra cannot tell about now leaves this registration unknown, not the whole order.
    const cancelled = await tokenCancelled(t.paymentMethodToken, read).catch(() => undefined);
    if (cancelled === undefined) status = 'unknown';
    else if (cancelled) status = 'cancelled';
  }
  return {
    id: t.uuid,
    kind,
    status,
    providerStatus: t.detailedStatus,
    declineCode: declineCodeOf(t),
    amount,
    capturedAmount: taken ? amount : 0,
    refundedAmount,
    currency: t.currency,
    parentId: t.parentUuid,
    keys: t.metadata[KEY_FIELD] ? [t.metadata[KEY_FIELD]] : [],
    createdAt: t.creationDate,
  };
}

function amountOf(t: LyraTransaction): number {
  const amount = fromLyraAmount(t.amount, t.currency);
  if (amount === undefined) throw new ProviderError('unavailable', `lyra: amount ${t.amount} ${t.currency} unreadable`);
  return amount;
}

/**
 * A voided verification stays ACCEPTED at Lyra; its token carries the cancellation. A token
 * Lyra answers as invalid or unknown (PSP_030, PSP_031: "cancelled, empty...") is gone too.
 */
async function tokenCancelled(
  token: string,
  read: (service: string, body: Record<string, unknown>) => Promise<LyraAnswer>,
): Promise<boolean> {
  let answer: LyraAnswer;
  try {
    answer = await read('Token/Get', { paymentMethodToken: token });
  } catch (err) {
    if (err instanceof LyraServiceError && TOKEN_ERRORS.has(err.errorCode)) return true;
    throw err;
  }
  const date = typeof answer.cancellationDate === 'string' ? new Date(answer.cancellationDate) : undefined;
  return date !== undefined && !Number.isNaN(date.getTime()) && date.getTime() <= Date.now();
}
