import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuestCheckout } from '../../../src/providers/index.js';
import { signAnswer } from '../../../src/providers/lyra/index.js';
import { type CardPageDeps, serveCardPage } from './card-page.js';
import { services } from './fake-services.js';
import { FakeServiceError, type FakeStore, fakeStore } from './fake-store.js';
import { type Delivery, sendIpn } from './ipn-sender.js';
import { envelope, paymentJson, serviceError } from './wire-shapes.js';

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
 * that times out after acting), a gateway's 503 before the service saw the call (`busy`), a 500
 * without an envelope (`crash`).
 */
export type Fault = 'technical' | 'hang' | 'garbage' | 'drop' | 'lose' | 'late' | 'busy' | 'crash';

export interface LyraFake {
  /** The REST base to configure, ending in `/api-payment/`. */
  apiUrl: string;
  /** Where the embedded-form script and its card form live, ending in `/static/`. */
  staticUrl: string;
  /** Each notification the card form sent, in order. */
  deliveries: Delivery[];
  store: FakeStore;
  /** Every authenticated call, in order: what the adapter sent. */
  calls: { service: string; body: Record<string, unknown> }[];
  failNext(service: string, fault: Fault): void;
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
export async function startLyraFake(shop: typeof DEMO_SHOP = DEMO_SHOP): Promise<LyraFake> {
  const store = fakeStore();
  const calls: LyraFake['calls'] = [];
  const faults = new Map<string, Fault>();
  const expected = `Basic ${Buffer.from(`${shop.shopId}:${shop.password}`).toString('base64')}`;
  const handlers = services(store, shop.shopId);

  const deliveries: Delivery[] = [];
  const complete = (formToken: string, pan: string) => {
    const form = store.form(formToken);
    const t = store.submitForm(formToken, pan);
    const answer = JSON.stringify(paymentJson(t, shop.shopId, form?.customer ?? {}));
    const ipnBody = new URLSearchParams({
      'kr-hash-key': 'password',
      'kr-hash-algorithm': 'sha256_hmac',
      'kr-answer': answer,
      'kr-answer-type': 'V4/Payment',
      'kr-hash': signAnswer(shop.password, answer),
    }).toString();
    const target = form?.ipnTargetUrl;
    const notify = () => (target ? sendIpn(target, ipnBody) : Promise.reject(new Error('fake: no ipnTargetUrl')));
    return { uuid: t.uuid, answer, ipnBody, notify };
  };
  const cardPage: CardPageDeps = {
    hmacKey: shop.hmacKey,
    publicKey: shop.publicKey,
    // Lyra answers the browser only once its notification was answered (protocol notes section 4).
    async pay(formToken, pan) {
      if (!store.form(formToken)) return undefined;
      const done = complete(formToken, pan);
      deliveries.push(await done.notify());
      return { answer: done.answer };
    },
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (await serveCardPage(cardPage, req, res, body)) return;
    const match = /^\/api-payment\/V4\/([A-Za-z]+\/[A-Za-z]+)$/.exec(req.url ?? '');
    // INVENTED: what Lyra answers on a path that is no service is not recorded.
    if (req.method !== 'POST' || !match) return send(res, 404, { error: 'fake: no such service' });
    const service = match[1]!;
    if (req.headers.authorization !== expected) {
      return send(
        res,
        401,
        envelope(service, 'ERROR', serviceError(shop.shopId, 'INT_001', 'fake: bad credentials'), 'TEST'),
      );
    }
    const fault = faults.get(service);
    faults.delete(service);
    if (fault === 'hang') return; // the socket is destroyed by close()
    if (fault === 'drop') return req.socket.destroy();
    if (fault === 'garbage') return sendText(res, 200, '<html>Service Unavailable</html>');
    if (fault === 'busy') return sendText(res, 503, '<html>Service Unavailable</html>');
    if (fault === 'crash') return sendText(res, 500, '<html>Internal Server Error</html>');
    if (fault === 'technical') {
      return send(
        res,
        200,
        envelope(service, 'ERROR', serviceError(shop.shopId, 'PSP_999', 'fake: technical'), 'TEST'),
      );
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
        envelope(service, 'ERROR', serviceError(shop.shopId, 'INT_902', 'body is not a JSON object'), 'TEST'),
      );
    }
    const request = json as Record<string, unknown>;
    calls.push({ service, body: request });
    try {
      const answer = handler(request);
      if (fault === 'lose') return req.socket.destroy();
      if (fault === 'late') return; // the socket is destroyed by close()
      send(res, 200, envelope(service, 'SUCCESS', answer, 'TEST'));
    } catch (err) {
      if (!(err instanceof FakeServiceError)) throw err;
      send(res, 200, envelope(service, 'ERROR', serviceError(shop.shopId, err.errorCode, err.message), 'TEST'));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiUrl: `http://127.0.0.1:${port}/api-payment/`,
    staticUrl: `http://127.0.0.1:${port}/static/`,
    deliveries,
    store,
    calls,
    failNext: (service, fault) => faults.set(service, fault),
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
