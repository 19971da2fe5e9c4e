import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuestCheckout } from '../../../src/providers/index.ts';
import { signAnswer } from '../../../src/providers/lyra/index.ts';
import { type CardPageDeps, serveCardPage } from './card-page.ts';
import { type FakeClock, fakeClock } from './fake-clock.ts';
import { services } from './fake-services.ts';
import { FakeServiceError, type FakeStore, fakeStore } from './fake-store.ts';
import { type Delivery, sendIpn } from './ipn-sender.ts';
import { envelope, paymentJson, serviceError, simpleStatus } from './wire-shapes.ts';

/**
 * Lyra's public demo shop (protocol notes section 1: lyra/rest-php-examples `keys.php`, the
 * keys joanie's recorded notifications are signed with).
 */
export const DEMO_SHOP = {
  shopId: '69876357',
  password: 'testpassword_DEMOPRIVATEKEY23G4475zXZQ2UA5x7M',
  publicKey: '69876357:testpublickey_DEMOPUBLICKEY95me92597fd28tGD4r5',
  hmacKey: '38453613e7f44dc58732bad3dca2bca3',
} as const;

/**
 * What the next call to a service meets. INVENTED, for tests: an ERROR envelope for a
 * technical failure (PSP_999), an answer that never comes, a 200 that is not JSON, a
 * connection closed without an answer, (`lose`) the call performed and its answer lost, (`late`)
 * the call performed and its answer never sent while the connection stays open (a provider
 * that times out after acting), (`slow`) the call performed and its answer sent after a delay,
 * (`mangled`) the call performed and its answer garbage, a gateway's 503 before the service saw
 * the call (`busy`), a 500 without an envelope (`crash`). Faults queue per service: each call
 * takes the next one.
 */
export type Fault =
  | 'technical'
  | 'hang'
  | 'garbage'
  | 'drop'
  | 'lose'
  | 'late'
  | 'slow'
  | 'mangled'
  | 'busy'
  | 'crash'
  /**
   * The call performed, its answer showing this detailedStatus instead of the transaction's
   * own (a state Lyra passed through, or one the adapter's table does not know). `stored`: the
   * call's transactions then show it in every later answer too (Order/Get, Transaction/Get, a
   * notification) until `store.settleShown()` or the next batch puts their true status back.
   */
  | { answerStatus: string; stored?: boolean };

/** A shop's keys: the demo shop, its PRODUCTION twin (a `prodpassword_`), or another shop. */
export interface ShopKeys {
  shopId: string;
  password: string;
  publicKey: string;
  hmacKey: string;
}

/**
 * The demo shop's PRODUCTION keys. INVENTED values (Lyra publishes test keys only), shaped as the
 * notes record production keys: `prodpassword_…`, `shopId:publickey_…`.
 */
export const DEMO_SHOP_PRODUCTION: ShopKeys = {
  shopId: DEMO_SHOP.shopId,
  password: 'prodpassword_FAKEPRODUCTIONKEY8Xq2Lm4Np6Rt',
  publicKey: `${DEMO_SHOP.shopId}:publickey_FAKEPRODUCTIONPUBLICKEY3k9Vz`,
  hmacKey: 'b7d0c7f3a1e24f0c9d5b8a6e2f41c3d9',
};

/** The mode a shop's password says (the notes: the password decides the mode). */
export function modeOf(keys: Pick<ShopKeys, 'password'>): 'TEST' | 'PRODUCTION' {
  return keys.password.startsWith('prodpassword_') ? 'PRODUCTION' : 'TEST';
}

export interface LyraFake {
  /** The REST base to configure, ending in `/api-payment/`. */
  apiUrl: string;
  /** Where the embedded-form script and its card form live, ending in `/static/`. */
  staticUrl: string;
  /** Each notification the card form sent, in order. */
  deliveries: Delivery[];
  /** The transactions of the shop `startLyraFake` was given (its TEST mode, for the demo shop). */
  store: FakeStore;
  /**
   * Lyra's time, shared by every shop: transactions' creation and capture dates, holds' expiry.
   * Real time until a test sets or advances it; then it stands where the test put it.
   */
  clock: FakeClock;
  /** The nightly remittance of every shop (each store's `runBatch`). */
  remit(): void;
  /**
   * Another set of keys served by the same fake: a second shop, or the same shop's other mode.
   * Each keeps its own transactions, cards and forms, as Lyra keeps TEST and PRODUCTION (and two
   * shops) apart: asking one about another's order is an empty order (PSP_010).
   */
  addShop(keys: ShopKeys): FakeStore;
  /** Every authenticated call, in order: what the adapter sent, and the shop id and mode it sent it as. */
  calls: { service: string; body: Record<string, unknown>; shopId: string; mode: 'TEST' | 'PRODUCTION' }[];
  /** The next call to `service` meets `fault` (queued behind faults already set); `slow` waits `delayMs`. */
  failNext(service: string, fault: Fault, opts?: { delayMs?: number }): void;
  /** Forgets every fault still queued (set for a call that never came). */
  clearFaults(): void;
  /**
   * Resolves once no call is being served: a `slow` answer sent, so whatever a call did (and
   * will answer) is done. A `hang` or `late` call counts as served: it does nothing more.
   */
  idle(): Promise<void>;
  /** Every shop served, the first one and each added: its keys, its mode and its transactions. */
  shops(): { keys: ShopKeys; mode: 'TEST' | 'PRODUCTION'; store: FakeStore }[];
  /**
   * The guest completes the card form of `formToken` with `pan`, as on Lyra's page; answers
   * the form-encoded notification Lyra posts to the IPN URL, signed with the shop password,
   * and `notify`, which posts it to the form's `ipnTargetUrl` with retries.
   */
  completeForm(formToken: string, pan: string): { uuid: string; ipnBody: string; notify: () => Promise<Delivery> };
  close(): Promise<void>;
}

/**
 * A loopback Lyra REST V4: `POST /api-payment/V4/{Group}/{Service}`, Basic auth with the shop
 * id and password, JSON in, the V4 envelope out (HTTP 200 with `status: "ERROR"` for a
 * business error, notes section 3). Bad credentials get HTTP 401 with an ERROR envelope: the
 * PHP SDK reads a 401's JSON body, but its shape is not recorded (INVENTED: `INT_001`).
 */
export async function startLyraFake(shop: ShopKeys = DEMO_SHOP): Promise<LyraFake> {
  const calls: LyraFake['calls'] = [];
  const faults = new Map<string, { fault: Fault; delayMs: number }[]>();
  const clock = fakeClock();
  /** Each set of keys served, by the Basic credentials that name it. */
  const shops = new Map<
    string,
    { keys: ShopKeys; mode: 'TEST' | 'PRODUCTION'; store: FakeStore; handlers: ReturnType<typeof services> }
  >();
  const addShop = (keys: ShopKeys): FakeStore => {
    const store = fakeStore(clock);
    const auth = `Basic ${Buffer.from(`${keys.shopId}:${keys.password}`).toString('base64')}`;
    shops.set(auth, { keys, mode: modeOf(keys), store, handlers: services(store, keys.shopId) });
    return store;
  };
  const store = addShop(shop);
  /** The shop whose card form `formToken` is. */
  const shopOfForm = (formToken: string) => [...shops.values()].find((s) => s.store.form(formToken));

  const deliveries: Delivery[] = [];
  const complete = (formToken: string, pan: string) => {
    const owner = shopOfForm(formToken);
    if (!owner) throw new FakeServiceError('PSP_010', 'fake: unknown form token');
    const form = owner.store.form(formToken);
    const t = owner.store.submitForm(formToken, pan);
    const answer = JSON.stringify(paymentJson(t, owner.keys.shopId, form?.customer ?? {}, owner.mode));
    const ipnBody = new URLSearchParams({
      'kr-hash-key': 'password',
      'kr-hash-algorithm': 'sha256_hmac',
      'kr-answer': answer,
      'kr-answer-type': 'V4/Payment',
      'kr-hash': signAnswer(owner.keys.password, answer),
    }).toString();
    const target = form?.ipnTargetUrl;
    const notify = () => (target ? sendIpn(target, ipnBody) : Promise.reject(new Error('fake: no ipnTargetUrl')));
    return { uuid: t.uuid, answer, ipnBody, notify, hmacKey: owner.keys.hmacKey };
  };
  const cardPage: CardPageDeps = {
    isPublicKey: (key) => [...shops.values()].some((s) => s.keys.publicKey === key),
    // Lyra answers the browser only once its notification was answered (protocol notes section 4).
    async pay(formToken, pan) {
      if (!shopOfForm(formToken)) return undefined;
      const done = complete(formToken, pan);
      deliveries.push(await done.notify());
      return { answer: done.answer, hmacKey: done.hmacKey };
    },
  };

  /** Calls being served, and who waits for none to be. */
  let serving = 0;
  let waiting: (() => void)[] = [];
  const doneServing = () => {
    serving--;
    if (serving > 0) return;
    for (const wake of waiting) wake();
    waiting = [];
  };

  const server = createServer(async (req, res) => {
    serving++;
    try {
      await serve(req, res);
    } finally {
      doneServing();
    }
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (await serveCardPage(cardPage, req, res, body)) return;
    const match = /^\/api-payment\/V4\/([A-Za-z]+\/[A-Za-z]+)$/.exec(req.url ?? '');
    // INVENTED: what Lyra answers on a path that is no service is not recorded.
    if (req.method !== 'POST' || !match) return send(res, 404, { error: 'fake: no such service' });
    const service = match[1]!;
    const served = shops.get(req.headers.authorization ?? '');
    if (!served) {
      return send(
        res,
        401,
        envelope(service, 'ERROR', serviceError(shop.shopId, 'INT_001', 'fake: bad credentials'), 'TEST'),
      );
    }
    const { keys, mode, handlers, store: servedStore } = served;
    const queued = faults.get(service)?.shift();
    const fault = queued?.fault;
    if (fault === 'hang') return; // the socket is destroyed by close()
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault === 'garbage') return sendText(res, 200, '<html>Service Unavailable</html>');
    if (fault === 'busy') return sendText(res, 503, '<html>Service Unavailable</html>');
    if (fault === 'crash') return sendText(res, 500, '<html>Internal Server Error</html>');
    if (fault === 'technical') {
      return send(res, 200, envelope(service, 'ERROR', serviceError(keys.shopId, 'PSP_999', 'fake: technical'), mode));
    }
    const handler = handlers[service];
    if (!handler) return send(res, 404, { error: `fake: ${service} is not served` });
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return send(
        res,
        200,
        envelope(service, 'ERROR', serviceError(keys.shopId, 'INT_902', 'body is not a JSON object'), mode),
      );
    }
    const request = json as Record<string, unknown>;
    calls.push({ service, body: request, shopId: keys.shopId, mode });
    try {
      const answer = modeAnswer(handler(request), mode);
      if (fault === 'lose') {
        req.socket.destroy();
        return;
      }
      if (fault === 'late') return; // the socket is destroyed by close()
      if (fault === 'mangled') return sendText(res, 200, '{"webService": "tru');
      if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, queued?.delayMs ?? 0));
      if (typeof fault === 'object' && fault.stored) {
        for (const uuid of uuidsOf(answer)) servedStore.showStatus(uuid, fault.answerStatus);
      }
      const shown =
        typeof fault !== 'object'
          ? answer
          : withStatus(answer, fault.answerStatus, fault.stored ? simpleStatus(fault.answerStatus) : 'RUNNING');
      if (!res.destroyed) send(res, 200, envelope(service, 'SUCCESS', shown, mode));
    } catch (err) {
      if (!(err instanceof FakeServiceError)) throw err;
      send(res, 200, envelope(service, 'ERROR', serviceError(keys.shopId, err.errorCode, err.message), mode));
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiUrl: `http://127.0.0.1:${port}/api-payment/`,
    staticUrl: `http://127.0.0.1:${port}/static/`,
    deliveries,
    store,
    clock,
    remit: () => {
      for (const s of shops.values()) s.store.runBatch();
    },
    addShop,
    calls,
    failNext: (service, fault, opts) =>
      faults.set(service, [...(faults.get(service) ?? []), { fault, delayMs: opts?.delayMs ?? 1_000 }]),
    clearFaults: () => faults.clear(),
    idle: () => (serving === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    shops: () => [...shops.values()].map(({ keys, mode, store }) => ({ keys, mode, store })),
    completeForm: (formToken, pan) => {
      const { uuid, ipnBody, notify } = complete(formToken, pan);
      return { uuid, ipnBody, notify };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer as a shop of `mode` gives it: its transactions' order details say the mode. */
function modeAnswer(answer: unknown, mode: 'TEST' | 'PRODUCTION'): unknown {
  if (mode === 'TEST') return answer;
  return JSON.parse(JSON.stringify(answer).replaceAll('"mode":"TEST"', `"mode":"${mode}"`));
}

/**
 * The answer with each transaction in it showing `detailedStatus` and the simple `status` (the
 * store keeps its own).
 */
function withStatus(answer: unknown, detailedStatus: string, status: string): unknown {
  const copy = JSON.parse(JSON.stringify(answer)) as Record<string, unknown>;
  const list = Array.isArray(copy.transactions) ? (copy.transactions as Record<string, unknown>[]) : [copy];
  for (const t of list) {
    if (typeof t.detailedStatus === 'string') {
      t.detailedStatus = detailedStatus;
      t.status = status;
    }
  }
  return copy;
}

/** The uuids of the transactions an answer carries (a Transaction, a Payment, an order's list). */
function uuidsOf(answer: unknown): string[] {
  if (typeof answer !== 'object' || answer === null) return [];
  const a = answer as Record<string, unknown>;
  const list = Array.isArray(a.transactions) ? (a.transactions as Record<string, unknown>[]) : [a];
  return list.flatMap((t) => (typeof t.uuid === 'string' && typeof t.detailedStatus === 'string' ? [t.uuid] : []));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, json: unknown): void {
  sendText(res, status, JSON.stringify(json), 'application/json');
}

function sendText(res: ServerResponse, status: number, text: string, type = 'text/html'): void {
  res.writeHead(status, { 'content-type': type }).end(text);
}

/** The form token of the embedded form the adapter handed out: what Lyra's script draws. */
export function formTokenOf(checkout: GuestCheckout): string {
  if (checkout.kind !== 'embedded-form') throw new Error(`not Lyra's embedded form: ${checkout.kind}`);
  return checkout.formToken;
}
