import {
  type EmbeddedCardForm,
  type GuestCheckoutInput,
  type MoneyAnswer,
  type MoneyCall,
  type PaymentProvider,
  ProviderError,
  type ProviderOrder,
  type ProviderTransaction,
} from '../payment-provider.js';
import { type LyraAnswer, LyraServiceError, lyraClient } from './client.js';
import { type LyraTransaction, readTransaction } from './lyra-transaction.js';
import { fromLyraAmount, isRefusal, toLyraAmount, transactionKind, transactionStatus } from './mapping.js';
import { parseLyraNotification, verifyBrowserReturn } from './notification.js';

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
      const answer = await client.call('Charge/CreatePayment', {
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
      const transactions = answer.transactions;
      const t = transactionOf(
        'Charge/CreatePayment',
        Array.isArray(transactions) && transactions.length === 1 ? transactions[0] : undefined,
        'unknown',
      );
      // A refusal comes inside a SUCCESS envelope, as an UNPAID transaction.
      // 'captured': a shop that ignored manualValidation. Money is held for automatic capture:
      // that is still this hold (release cancels it before the batch), never "nothing happened".
      failUnlessDone('silent hold', t, ['authorised', 'captured']);
      return { transactionId: t.uuid };
    },

    /** Validate captures a held transaction whole: a partial capture lowers the amount first. */
    async capture(call) {
      const held = await getTransaction(call.transactionId);
      const amount = lyraAmount(call.amountCents, call.currency);
      // Asked again after a lost answer: already validated at this amount is done, not an error.
      if (transactionStatus(held) === 'captured' && held.amount === amount) return { transactionId: held.uuid };
      if (transactionStatus(held) !== 'authorised') {
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
        failUnlessDone('capture', validated, ['captured']);
        return { transactionId: validated.uuid };
      } catch (err) {
        // Two steps: the hold is lowered at Lyra already, so "nothing moved" is no longer true
        // whatever Validate answered. In doubt until the order view shows it captured or not.
        if (!lowered || !(err instanceof ProviderError) || err.kind === 'unknown') throw err;
        throw new ProviderError('unknown', `lyra capture: hold ${held.uuid} lowered to ${amount}, then ${err.message}`);
      }
    },

    async release(call) {
      const t = await money('Transaction/Cancel', { uuid: call.transactionId, comment: comment(call) });
      failUnlessDone('release', t, ['cancelled']);
      return { transactionId: t.uuid };
    },

    /**
     * One call cancels or refunds (AUTO): a payment not yet sent to the bank is cancelled or
     * lowered (same transaction), one already captured gets a new CREDIT transaction.
     */
    async refund(call): Promise<MoneyAnswer> {
      const t = await money('Transaction/CancelOrRefund', {
        uuid: call.transactionId,
        amount: lyraAmount(call.amountCents, call.currency),
        currency: call.currency,
        resolutionMode: 'AUTO',
        comment: comment(call),
      });
      failUnlessDone('refund', t, ['refunded', 'cancelled', 'captured']);
      return { transactionId: t.uuid };
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
        return { transactionId: t.uuid };
      }
      const cancelled = await money('Transaction/Cancel', { uuid: t.uuid, comment: comment(call) });
      failUnlessDone('void', cancelled, ['cancelled']);
      return { transactionId: cancelled.uuid };
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

function failUnlessDone(what: string, t: LyraTransaction, done: readonly string[]): void {
  const status = transactionStatus(t);
  if (status && done.includes(status)) return;
  const why = `lyra ${what}: ${t.uuid} is ${t.detailedStatus}${t.errorCode ? ` (${t.errorCode})` : ''}`;
  if (isRefusal(t)) throw new ProviderError('refused', why);
  // Lyra is still deciding, or says something this adapter's table does not know: what happened
  // is for reconcile to read in the order view, never "nothing moved" by guess.
  if (status === 'in_transit' || status === undefined) throw new ProviderError('unknown', why);
  throw new ProviderError('technical', why);
}

/** One transaction as payreq sees it; a state the table does not settle makes the view unavailable. */
async function viewOf(
  t: LyraTransaction,
  all: readonly LyraTransaction[],
  read: (service: string, body: Record<string, unknown>) => Promise<LyraAnswer>,
): Promise<ProviderTransaction> {
  const kind = transactionKind(t);
  let status = transactionStatus(t);
  if (!kind || !status || status === 'in_transit') {
    throw new ProviderError('unavailable', `lyra: ${t.uuid} is ${t.operationType} ${t.detailedStatus}, not settled`);
  }
  const amount = amountOf(t);
  const taken = kind === 'payment' || kind === 'hold' ? status === 'captured' : false;
  const refundedAmount = taken
    ? all
        .filter((c) => c.operationType === 'CREDIT' && c.parentUuid === t.uuid && transactionStatus(c) === 'refunded')
        .reduce((sum, c) => sum + amountOf(c), 0)
    : 0;
  if (taken && refundedAmount >= amount) status = 'refunded';
  if (kind === 'verification' && status === 'accepted' && t.paymentMethodToken) {
    if (await tokenCancelled(t.paymentMethodToken, read)) status = 'cancelled';
  }
  return {
    id: t.uuid,
    kind,
    status,
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

/** A voided verification stays ACCEPTED at Lyra; its token carries the cancellation. */
async function tokenCancelled(
  token: string,
  read: (service: string, body: Record<string, unknown>) => Promise<LyraAnswer>,
): Promise<boolean> {
  const answer = await read('Token/Get', { paymentMethodToken: token });
  const date = typeof answer.cancellationDate === 'string' ? new Date(answer.cancellationDate) : undefined;
  return date !== undefined && !Number.isNaN(date.getTime()) && date.getTime() <= Date.now();
}
