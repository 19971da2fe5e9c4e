import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeader } from '../../../src/providers/stripe/index.ts';
import { type FakeClock, fakeClock } from '../lyra/fake-clock.ts';
import {
  type AccountOps,
  accountOps,
  type Delivery,
  type FakeAccount,
  FakeStripeError,
  fakeAccount,
  invalid,
  missing,
  newId,
  type StripeObject,
} from './fake-store.ts';
import { canonical, decodeForm, FormError, type FormObject, obj, text, texts } from './form-decode.ts';
import { checkoutPage, closedPage } from './hosted-page.ts';

/** The fake's test keys (INVENTED values, shaped as Stripe's: `sk_test_` and 24 characters or more). */
export const FAKE_KEYS = {
  test: 'sk_test_51FakeHotelAccountKey0000000000',
  live: 'sk_live_51FakeHotelAccountKey0000000000',
  other: 'sk_test_51OtherHotelAccountKey000000000',
} as const;

/**
 * What the next call to a route meets (INVENTED, for tests). Every fault but `slow` and a
 * shown status is sticky: once a call with an Idempotency-Key met it, every later call with
 * the same key (the SDK's retries, payreq's paced tries after a 429) meets it too, until
 * clearFaults().
 * - lose: the call is performed, the connection closed before the answer;
 * - late: performed, the answer never sent (the connection stays open);
 * - hang: not performed, no answer;
 * - slow: performed, the answer sent after `delayMs`;
 * - technical: 429 `rate_limit_error`, nothing done (Stripe refused the load), every try;
 * - throttled: the same 429 for this one call only (the next try gets through);
 * - crash: 500 `api_error` before anything is done;
 * - { status, stored }: performed, its answer showing the PaymentIntent or Refund in `status`
 *   (a state in transit, or one no table knows); `stored`: every later view shows it too until
 *   settleShown().
 */
export type Fault =
  | 'lose'
  | 'late'
  | 'hang'
  | 'slow'
  | 'technical'
  | 'throttled'
  | 'crash'
  | { status: string; stored?: boolean };

export interface DeliveryRecord {
  delivery: Delivery;
  /** The HTTP statuses each attempt met (0: no answer). */
  attempts: number[];
  delivered: boolean;
}

export interface StripeFake {
  /** The API base to configure (`--api-url`): also where the hosted pages live. */
  apiUrl: string;
  clock: FakeClock;
  /** The account of FAKE_KEYS.test. */
  account: FakeAccount;
  ops: AccountOps;
  /** Another account (or the same hotel's live mode), served by its own key. */
  addAccount(secretKey: string): { account: FakeAccount; ops: AccountOps };
  accountOf(secretKey: string): { account: FakeAccount; ops: AccountOps } | undefined;
  /** Every authenticated API call, in order. */
  calls: {
    method: string;
    route: string;
    path: string;
    params: FormObject;
    idempotencyKey: string | null;
    secretKey: string;
    replayed: boolean;
  }[];
  failNext(route: string, fault: Fault, opts?: { delayMs?: number }): void;
  clearFaults(): void;
  /** The PaymentIntents and Refunds a stored `{ status }` fault showed take their own status again. */
  settleShown(): void;
  /** Resolves once no call is being served and no delivery is under way. */
  idle(): Promise<void>;
  /** Each webhook delivery, in order: its event, and how each attempt went. */
  deliveries: DeliveryRecord[];
  /** Hold webhooks back (a test delivers them itself), or send them again (and what was held). */
  holdWebhooks(hold: boolean): void;
  /** Deliveries held back so far, oldest first, taken out of the queue. */
  takeHeld(): Delivery[];
  /** An endpoint of the account's, made as the operator does in the dashboard; answers its secret. */
  addEndpoint(account: FakeAccount, url: string, events?: readonly string[]): { id: string; secret: string };
  /** Stripe's clock passes the holds' `capture_before`: each lapses (`charge.expired`). */
  expireHolds(): void;
  close(): Promise<void>;
}

interface Ctx {
  a: FakeAccount;
  ops: AccountOps;
  params: FormObject;
  path: string;
  key: string | null;
}
type Handler = (ctx: Ctx, id: string) => unknown;

/**
 * A loopback, stateful Stripe API v1 for the tests: form-encoded bodies with bracket keys, a
 * Bearer secret key per account, Stripe's error objects and statuses, Idempotency-Key replay
 * (`Idempotent-Replayed: true`) and mismatch (`idempotency_error`), `expand[]`, list pagination
 * (`limit`, `starting_after`, `ending_before`, `has_more`), events signed and posted to each
 * webhook endpoint (`Stripe-Signature`, retried until answered 2xx), and a hosted Checkout page.
 */
export async function startStripeFake(): Promise<StripeFake> {
  const clock = fakeClock();
  const accounts = new Map<string, { account: FakeAccount; ops: AccountOps }>();
  /** Each endpoint's signing secret, kept apart from the object (Stripe shows it at creation only). */
  const secrets = new Map<string, string>();
  const deliveries: DeliveryRecord[] = [];
  let holding = false;
  let held: Delivery[] = [];
  let underway = 0;
  let waiting: (() => void)[] = [];
  const calls: StripeFake['calls'] = [];
  const faults = new Map<string, { fault: Fault; delayMs: number }[]>();
  const sticky = new Map<string, { fault: Fault; delayMs: number }>();

  const done = () => {
    underway--;
    if (underway > 0) return;
    for (const wake of waiting) wake();
    waiting = [];
  };

  function emit(a: FakeAccount, event: StripeObject): void {
    for (const endpoint of a.objects.values()) {
      if (endpoint.object !== 'webhook_endpoint' || endpoint.status !== 'enabled') continue;
      const enabled = endpoint.enabled_events as string[];
      if (!enabled.includes('*') && !enabled.includes(event.type as string)) continue;
      const body = JSON.stringify(event, null, 2);
      const secret = secrets.get(endpoint.id) as string;
      // Signed at the moment of sending, by the real clock (the fake's clock moves objects only).
      const delivery: Delivery = {
        url: endpoint.url as string,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signatureHeader(secret, Math.floor(Date.now() / 1000), body),
        },
        body,
        event,
      };
      if (holding) held.push(delivery);
      else send(delivery);
    }
  }

  /** Posts a delivery until it is answered 2xx (INVENTED backoff: Stripe's spans three days). */
  function send(delivery: Delivery): void {
    const record: DeliveryRecord = { delivery, attempts: [], delivered: false };
    deliveries.push(record);
    underway++;
    void (async () => {
      try {
        for (let attempt = 0; attempt < 5 && !record.delivered; attempt++) {
          if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
          try {
            const r = await fetch(delivery.url, {
              method: 'POST',
              headers: delivery.headers,
              body: delivery.body,
              signal: AbortSignal.timeout(10_000),
            });
            await r.body?.cancel().catch(() => undefined);
            record.attempts.push(r.status);
            record.delivered = r.status >= 200 && r.status < 300;
          } catch {
            record.attempts.push(0);
          }
        }
      } finally {
        done();
      }
    })();
  }

  const addAccount = (secretKey: string) => {
    const account = fakeAccount(secretKey);
    const ops = accountOps(account, clock, emit);
    const entry = { account, ops };
    accounts.set(secretKey, entry);
    return entry;
  };
  const main = addAccount(FAKE_KEYS.test);

  const addEndpoint = (a: FakeAccount, url: string, events: readonly string[] = ['*']) => {
    const id = newId('we');
    const secret = `whsec_${newId('x').slice(2)}${newId('x').slice(2)}`;
    secrets.set(id, secret);
    a.objects.set(id, {
      id,
      object: 'webhook_endpoint',
      api_version: null,
      created: Math.floor(clock.now().getTime() / 1000),
      description: null,
      enabled_events: [...events],
      livemode: a.livemode,
      metadata: {},
      status: 'enabled',
      url,
    });
    return { id, secret };
  };

  let baseUrl = '';
  const routes = apiRoutes(() => baseUrl, addEndpoint);

  const server = createServer(async (req, res) => {
    underway++;
    try {
      await serve(req, res);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: { type: 'api_error', message: String(err) } });
    } finally {
      done();
    }
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/pay/')) return servePage(req, res, url, body);
    const auth = req.headers.authorization ?? '';
    const key = /^Bearer (.+)$/.exec(auth)?.[1] ?? '';
    const served = accounts.get(key);
    if (!served) {
      const shown = key.length > 4 ? `${key.slice(0, 8)}****${key.slice(-4)}` : key;
      return sendJson(res, 401, {
        error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${shown}` },
      });
    }
    const method = req.method ?? 'GET';
    const matched = match(routes, method, url.pathname);
    if (!matched) {
      return sendJson(res, 404, {
        error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${url.pathname}).` },
      });
    }
    let params: FormObject;
    try {
      params = decodeForm(method === 'GET' || method === 'DELETE' ? url.search.slice(1) : body);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return sendJson(res, 400, { error: { type: 'invalid_request_error', message: err.message, param: err.key } });
    }
    const idemKey = method === 'POST' ? (headerOf(req, 'idempotency-key') ?? null) : null;
    const { account: a, ops } = served;
    const call = {
      method,
      route: matched.route,
      path: url.pathname,
      params,
      idempotencyKey: idemKey,
      secretKey: key,
      replayed: false,
    };
    calls.push(call);
    ops.expireHolds();

    // Faults: a key that met a sticky one meets it again; otherwise the route's next.
    const queued = (idemKey && sticky.get(`${key}:${idemKey}`)) || faults.get(matched.route)?.shift();
    const fault = queued?.fault;
    if (queued && idemKey && fault !== 'slow' && fault !== 'throttled' && typeof fault !== 'object') {
      sticky.set(`${key}:${idemKey}`, queued);
    }
    if (fault === 'hang') return;
    if (fault === 'technical' || fault === 'throttled') {
      return sendJson(res, 429, {
        error: {
          type: 'invalid_request_error',
          code: 'rate_limit',
          message: 'Too many requests hit the API too quickly.',
        },
      });
    }
    if (fault === 'crash')
      return sendJson(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred' } });

    // Idempotency: the same key and parameters replay the first answer; others are refused.
    const signature = `${matched.route} ${canonical(params)}`;
    const store = idempotency(a);
    let answer: { status: number; json: unknown };
    const before = idemKey ? store.get(idemKey) : undefined;
    if (before) {
      if (before.signature !== signature) {
        answer = {
          status: 400,
          json: {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
            },
          },
        };
      } else {
        call.replayed = true;
        res.setHeader('idempotent-replayed', 'true');
        answer = before.answer;
      }
    } else {
      try {
        const result = matched.handler({ a, ops, params, path: url.pathname, key: idemKey }, matched.id);
        answer = { status: 200, json: view(a, result, texts(params.expand)) };
      } catch (err) {
        if (!(err instanceof FakeStripeError)) throw err;
        answer = { status: err.status, json: { error: err.error } };
      }
      if (idemKey) store.set(idemKey, { signature, answer });
    }
    if (typeof fault === 'object') {
      const shownStatus = fault.status;
      answer = { status: answer.status, json: withStatus(answer.json, shownStatus) };
      if (fault.stored) for (const id of idsOf(answer.json)) a.shown.set(id, shownStatus);
    }
    if (fault === 'lose') {
      req.socket.destroy();
      return;
    }
    if (fault === 'late') return;
    if (fault === 'slow') await new Promise((r) => setTimeout(r, queued?.delayMs ?? 1000));
    if (!res.destroyed) sendJson(res, answer.status, answer.json);
  }

  /** The hosted Checkout page: GET shows it, POST submits the card typed on it. */
  async function servePage(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<void> {
    const id = url.pathname.slice('/pay/'.length);
    const owner = [...accounts.values()].find((x) => x.account.objects.get(id)?.object === 'checkout.session');
    const session = owner?.account.objects.get(id);
    if (!owner || !session) return sendText(res, 404, 'No such session');
    owner.ops.expireHolds();
    if (req.method !== 'POST') {
      return sendText(res, 200, session.status === 'open' ? checkoutPage(session) : closedPage(session));
    }
    const form = new URLSearchParams(body);
    const number = (form.get('card_number') ?? '').replace(/\s+/g, '');
    const expMonth = Number(form.get('exp_month'));
    const rawYear = Number(form.get('exp_year'));
    const expYear = rawYear < 100 ? 2000 + rawYear : rawYear;
    if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12 || !Number.isInteger(expYear)) {
      return sendText(res, 400, checkoutPage(session, 'Your card’s expiration date is incomplete.'));
    }
    let outcome: { done: boolean; error?: string };
    try {
      outcome = owner.ops.submitSession(id, { number, expMonth, expYear });
    } catch (err) {
      if (!(err instanceof FakeStripeError)) throw err;
      return sendText(res, 400, checkoutPage(session, err.message));
    }
    if (!outcome.done) return sendText(res, 402, checkoutPage(session, outcome.error));
    const back = String(session.success_url).replaceAll('{CHECKOUT_SESSION_ID}', id);
    res.writeHead(303, { location: back }).end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl: baseUrl,
    clock,
    account: main.account,
    ops: main.ops,
    addAccount,
    accountOf: (k) => accounts.get(k),
    calls,
    failNext: (route, fault, opts) =>
      faults.set(route, [...(faults.get(route) ?? []), { fault, delayMs: opts?.delayMs ?? 1000 }]),
    clearFaults: () => {
      faults.clear();
      sticky.clear();
    },
    settleShown: () => {
      for (const { account } of accounts.values()) account.shown.clear();
    },
    idle: () => (underway === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    deliveries,
    holdWebhooks(hold) {
      holding = hold;
      if (!hold) {
        const queued = held;
        held = [];
        for (const d of queued) send(d);
      }
    },
    takeHeld() {
      const taken = held;
      held = [];
      return taken;
    },
    addEndpoint,
    expireHolds() {
      for (const { ops } of accounts.values()) ops.expireHolds();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each account's saved answers by Idempotency-Key (INVENTED: never pruned; Stripe prunes after 24 h). */
const stores = new WeakMap<
  FakeAccount,
  Map<string, { signature: string; answer: { status: number; json: unknown } }>
>();
function idempotency(a: FakeAccount) {
  const found = stores.get(a);
  if (found) return found;
  const made = new Map<string, { signature: string; answer: { status: number; json: unknown } }>();
  stores.set(a, made);
  return made;
}

/** An object (or a list) as the API shows it: a copy, with `expand` applied and a shown status in place of its own. */
function view(a: FakeAccount, value: unknown, expand: readonly string[]): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const shown = (o: Record<string, unknown>) => {
    const id = o.id as string | undefined;
    if (id && a.shown.has(id)) o.status = a.shown.get(id);
  };
  const expandPath = (target: unknown, path: string[]): unknown => {
    if (!target || typeof target !== 'object') return target;
    const o = target as Record<string, unknown>;
    const [head, ...rest] = path;
    if (!head) return o;
    if (head === 'data' && Array.isArray(o.data)) {
      o.data = (o.data as unknown[]).map((item) => expandPath(item, rest));
      return o;
    }
    const field = o[head];
    if (typeof field === 'string' && a.objects.has(field)) {
      const inner = structuredClone(a.objects.get(field)) as Record<string, unknown>;
      shown(inner);
      o[head] = expandPath(inner, rest);
    } else if (field && typeof field === 'object') o[head] = expandPath(field, rest);
    return o;
  };
  if (copy && typeof copy === 'object') {
    if (copy.object === 'list') for (const item of copy.data as Record<string, unknown>[]) shown(item);
    else shown(copy);
  }
  for (const path of expand) expandPath(copy, path.split('.'));
  return copy;
}

/** An answer with its PaymentIntent or Refund (or a card error's PaymentIntent) showing `status`. */
function withStatus(json: unknown, status: string): unknown {
  const copy = structuredClone(json) as Record<string, unknown>;
  const intent = (copy.error as { payment_intent?: Record<string, unknown> } | undefined)?.payment_intent;
  if (intent) intent.status = status;
  else if (copy.object === 'payment_intent' || copy.object === 'refund') copy.status = status;
  return copy;
}

function idsOf(json: unknown): string[] {
  const o = json as { id?: unknown; error?: { payment_intent?: { id?: unknown } } } | null;
  const id = o?.error?.payment_intent?.id ?? o?.id;
  return typeof id === 'string' ? [id] : [];
}

/** A list as Stripe pages it: newest first, `limit` (10 by default, at most 100), a cursor either way. */
function list(items: StripeObject[], params: FormObject, url: string) {
  // Newest first; made in the same second, the later made first (the account keeps them in order).
  const sorted = items
    .map((o, i) => ({ o, i }))
    .sort((x, y) => y.o.created - x.o.created || y.i - x.i)
    .map((x) => x.o);
  const limit = Math.min(100, Math.max(1, Number(text(params.limit) ?? 10) || 10));
  let from = 0;
  const after = text(params.starting_after);
  const before = text(params.ending_before);
  if (after) {
    const i = sorted.findIndex((o) => o.id === after);
    if (i < 0) throw missing(after, 'starting_after');
    from = i + 1;
  }
  let page = sorted.slice(from, from + limit);
  if (before) {
    const i = sorted.findIndex((o) => o.id === before);
    if (i < 0) throw missing(before, 'ending_before');
    page = sorted.slice(Math.max(0, i - limit), i);
  }
  const last = page[page.length - 1];
  const hasMore = before
    ? sorted.indexOf(page[0] as StripeObject) > 0
    : last
      ? sorted.indexOf(last) < sorted.length - 1
      : false;
  return { object: 'list', data: page, has_more: hasMore, url };
}

function all(a: FakeAccount, kind: string): StripeObject[] {
  return [...a.objects.values()].filter((o) => o.object === kind);
}

function metadataOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const o = obj(v as never);
  if (!o) return out;
  for (const [k, val] of Object.entries(o)) if (typeof val === 'string') out[k] = val;
  return out;
}

function intParam(params: FormObject, name: string, required: boolean): number | undefined {
  const raw = text(params[name]);
  if (raw === undefined) {
    if (required) throw invalid(`Missing required param: ${name}.`, { code: 'parameter_missing', param: name });
    return undefined;
  }
  if (!/^\d+$/.test(raw)) throw invalid(`Invalid integer: ${raw}`, { code: 'parameter_invalid_integer', param: name });
  return Number(raw);
}

function required(params: FormObject, name: string): string {
  const v = text(params[name]);
  if (!v) throw invalid(`Missing required param: ${name}.`, { code: 'parameter_missing', param: name });
  return v;
}

/** A range filter `arrival_date[gte]=…` (or a bare value), on a unix time. */
function inRange(value: number, filter: unknown): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return value === Number(filter);
  const f = obj(filter as never) ?? {};
  const n = (k: string) => (text(f[k]) === undefined ? undefined : Number(text(f[k])));
  const [gte, gt, lte, lt] = [n('gte'), n('gt'), n('lte'), n('lt')];
  return (
    (gte === undefined || value >= gte) &&
    (gt === undefined || value > gt) &&
    (lte === undefined || value <= lte) &&
    (lt === undefined || value < lt)
  );
}

/** The API's routes: `METHOD /path/:id`, each a handler on the account. */
function apiRoutes(
  base: () => string,
  addEndpoint: (a: FakeAccount, url: string, events?: readonly string[]) => { id: string; secret: string },
): Map<string, Handler> {
  const r = new Map<string, Handler>();
  r.set('POST /v1/customers', ({ ops, params }) =>
    ops.createCustomer({
      ...(text(params.email) ? { email: text(params.email) as string } : {}),
      metadata: metadataOf(params.metadata),
    }),
  );
  r.set('GET /v1/customers/:id', ({ ops }, id) => ops.get(id, 'customer'));
  r.set('GET /v1/customers', ({ a, params, path }) =>
    list(
      all(a, 'customer').filter((c) => !text(params.email) || c.email === text(params.email)),
      params,
      path,
    ),
  );
  r.set('POST /v1/checkout/sessions', ({ ops, params }) => {
    const mode = required(params, 'mode');
    if (mode !== 'payment' && mode !== 'setup') throw invalid(`Invalid mode: ${mode}`, { param: 'mode' });
    const successUrl = required(params, 'success_url');
    const customer = text(params.customer) ?? null;
    if (customer) ops.get(customer, 'customer', 'customer');
    const currency = text(params.currency) ?? null;
    if (mode === 'setup' && !currency) {
      throw invalid('currency is required in setup mode when payment method types are not given.', {
        code: 'parameter_missing',
        param: 'currency',
      });
    }
    let amount: number | null = null;
    let intent: FormObject | undefined;
    if (mode === 'payment') {
      const items = params.line_items;
      const first = Array.isArray(items) ? obj(items[0]) : undefined;
      const price = obj(first?.price_data);
      if (!first || !price) throw invalid('line_items is required in payment mode.', { param: 'line_items' });
      const unit = intParam(price, 'unit_amount', true) as number;
      amount = unit * (intParam(first, 'quantity', false) ?? 1);
      intent = obj(params.payment_intent_data);
    } else intent = obj(params.setup_intent_data);
    return ops.createSession({
      mode,
      customer,
      currency:
        currency ??
        text(obj(obj(Array.isArray(params.line_items) ? params.line_items[0] : undefined)?.price_data)?.currency) ??
        null,
      amount,
      clientReferenceId: text(params.client_reference_id) ?? null,
      metadata: metadataOf(params.metadata),
      intentMetadata: metadataOf(intent?.metadata),
      captureMethod: text(intent?.capture_method) ?? null,
      successUrl,
      cancelUrl: text(params.cancel_url) ?? null,
      locale: text(params.locale) ?? null,
      baseUrl: base(),
    });
  });
  r.set('GET /v1/checkout/sessions/:id', ({ ops }, id) => ops.get(id, 'checkout.session'));
  r.set('POST /v1/checkout/sessions/:id/expire', ({ ops }, id) => {
    const s = ops.get(id, 'checkout.session');
    if (s.status !== 'open') throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired.`);
    s.status = 'expired';
    ops.event('checkout.session.expired', s);
    return s;
  });
  r.set('GET /v1/checkout/sessions', ({ a, params, path }) =>
    list(
      all(a, 'checkout.session').filter(
        (s) =>
          (!text(params.customer) || s.customer === text(params.customer)) &&
          (!text(params.payment_intent) || s.payment_intent === text(params.payment_intent)),
      ),
      params,
      path,
    ),
  );
  r.set('GET /v1/setup_intents/:id', ({ ops }, id) => ops.get(id, 'setup_intent'));
  r.set('GET /v1/setup_intents', ({ a, params, path }) => {
    const customer = text(params.customer);
    if (customer && !a.objects.has(customer)) throw missing(customer, 'customer');
    return list(
      all(a, 'setup_intent').filter((s) => !customer || s.customer === customer),
      params,
      path,
    );
  });
  r.set('GET /v1/payment_methods/:id', ({ ops }, id) => ops.get(id, 'payment_method'));
  r.set('POST /v1/payment_methods/:id/detach', ({ ops, key }, id) => ops.detach(id, key));
  r.set('POST /v1/payment_intents', ({ ops, params, key }) => {
    const amount = intParam(params, 'amount', true) as number;
    if (amount < 1) throw invalid('Amount must be at least 1', { code: 'amount_too_small', param: 'amount' });
    return ops.createPaymentIntent(
      {
        amount,
        currency: required(params, 'currency'),
        customer: text(params.customer) ?? null,
        paymentMethod: text(params.payment_method) ?? null,
        captureMethod: text(params.capture_method) ?? 'automatic_async',
        confirm: text(params.confirm) === 'true',
        offSession: text(params.off_session) === 'true',
        metadata: metadataOf(params.metadata),
      },
      key,
    );
  });
  r.set('GET /v1/payment_intents/:id', ({ ops }, id) => ops.get(id, 'payment_intent'));
  r.set('GET /v1/payment_intents', ({ a, params, path }) => {
    const customer = text(params.customer);
    if (customer && !a.objects.has(customer)) throw missing(customer, 'customer');
    return list(
      all(a, 'payment_intent').filter((p) => !customer || p.customer === customer),
      params,
      path,
    );
  });
  r.set('POST /v1/payment_intents/:id/capture', ({ ops, params, key }, id) =>
    ops.capture(id, intParam(params, 'amount_to_capture', false), key),
  );
  r.set('POST /v1/payment_intents/:id/cancel', ({ ops, params, key }, id) =>
    ops.cancel(id, text(params.cancellation_reason) ?? null, key),
  );
  r.set('GET /v1/charges/:id', ({ ops }, id) => ops.get(id, 'charge'));
  r.set('POST /v1/refunds', ({ ops, params, key }) =>
    ops.refund(
      {
        paymentIntent: required(params, 'payment_intent'),
        amount: intParam(params, 'amount', false),
        metadata: metadataOf(params.metadata),
      },
      key,
    ),
  );
  r.set('GET /v1/refunds/:id', ({ ops }, id) => ops.get(id, 'refund'));
  r.set('GET /v1/refunds', ({ a, params, path }) =>
    list(
      all(a, 'refund').filter(
        (x) =>
          (!text(params.payment_intent) || x.payment_intent === text(params.payment_intent)) &&
          (!text(params.charge) || x.charge === text(params.charge)),
      ),
      params,
      path,
    ),
  );
  r.set('GET /v1/events/:id', ({ a }, id) => {
    const e = a.events.find((x) => x.id === id);
    if (!e) throw missing(id);
    return e;
  });
  r.set('GET /v1/events', ({ a, params, path }) =>
    list(
      a.events.filter((e) => !text(params.type) || e.type === text(params.type)),
      params,
      path,
    ),
  );
  r.set('POST /v1/webhook_endpoints', ({ a, params }) => {
    const url = required(params, 'url');
    const events = params.enabled_events;
    const enabled = Array.isArray(events) ? events.filter((e): e is string => typeof e === 'string') : [];
    if (enabled.length === 0) throw invalid('Missing required param: enabled_events.', { param: 'enabled_events' });
    const { id, secret } = addEndpoint(a, url, enabled);
    return { ...(a.objects.get(id) as StripeObject), secret };
  });
  r.set('GET /v1/webhook_endpoints', ({ a, params, path }) => list(all(a, 'webhook_endpoint'), params, path));
  r.set('DELETE /v1/webhook_endpoints/:id', ({ a, ops }, id) => {
    ops.get(id, 'webhook_endpoint');
    a.objects.delete(id);
    return { id, object: 'webhook_endpoint', deleted: true };
  });
  r.set('GET /v1/balance_transactions/:id', ({ ops }, id) => ops.get(id, 'balance_transaction'));
  r.set('GET /v1/balance_transactions', ({ a, params, path }) => {
    const payout = text(params.payout);
    if (payout && !a.objects.has(payout)) throw missing(payout, 'payout');
    return list(
      all(a, 'balance_transaction').filter(
        (t) => (!payout || t.payout === payout) && (!text(params.type) || t.type === text(params.type)),
      ),
      params,
      path,
    );
  });
  r.set('GET /v1/payouts/:id', ({ ops }, id) => ops.get(id, 'payout'));
  r.set('GET /v1/payouts', ({ a, params, path }) =>
    list(
      all(a, 'payout').filter(
        (p) =>
          (!text(params.status) || p.status === text(params.status)) &&
          inRange(p.arrival_date as number, params.arrival_date) &&
          inRange(p.created, params.created),
      ),
      params,
      path,
    ),
  );
  return r;
}

function match(routes: Map<string, Handler>, method: string, path: string) {
  for (const [route, handler] of routes) {
    const [m, pattern] = route.split(' ') as [string, string];
    if (m !== method) continue;
    const re = new RegExp(`^${pattern.replace(':id', '([^/]+)')}$`);
    const found = re.exec(path);
    if (found) return { route, handler, id: decodeURIComponent(found[1] ?? '') };
  }
  return undefined;
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let t = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      t += c;
    });
    req.on('end', () => resolve(t));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, json: unknown): void {
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'request-id': newId('req'),
      'stripe-version': '2026-10-28.endive',
    })
    .end(JSON.stringify(json));
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}
