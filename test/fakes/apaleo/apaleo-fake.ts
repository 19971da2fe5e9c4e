import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApaleoStore, apaleoStore, type FakeFolio, type FakeFolioEntry } from './apaleo-store.ts';

/**
 * A loopback Apaleo: the identity server's token endpoint, the Core API's calls payreq makes
 * (inventory, booking, finance) and the Webhook API, all on one address (payreq is given it as
 * `--api-url` and `--identity-url`; the webhook host of a non-`api.` address is itself).
 *
 * Shapes, from Apaleo's own material (docs/apaleo.md lists them):
 * - token: `POST /connect/token`, `grant_type=client_credentials`, client id and secret by HTTP
 *   Basic (apaleo.dev "OAuth 2.0 - Client credentials grant flow"; the n8n node
 *   apaleo/n8n-nodes-apaleo `credentials/ApaleoOAuth2Api.credentials.ts` sends exactly this and
 *   reads `access_token`, `expires_in`). A bad client: `400 {"error": "invalid_client"}`, the
 *   usual answer of an OAuth identity server (INVENTED: Apaleo does not document it);
 * - errors: 401 bad token, 403, 404, 422 `{"messages": [...]}` as the catch-all of client errors
 *   (apaleo.dev "Troubleshooting"); 429 when throttled (apaleo.dev "Rate Limiting");
 * - reservation: `GET /booking/v1/reservations/{id}` with `property.id`, `primaryGuest`,
 *   `arrival`, `departure`, `totalGrossAmount`, `balance`, `timeSlices[].totalGrossAmount`,
 *   `status` (PHP client maks-oleksyuk/apaleo-php `Reservation`, `Guest`, `ReservationStatus`);
 * - folios: `GET /finance/v1/folios?reservationIds=…` → `{"folios": [...], "count"}`, each with
 *   `type`, `isMainFolio`, `status`, `reservation.id` (`FolioListItem`); none: 204 (INVENTED:
 *   Apaleo's list endpoints answer 204 when empty, as its swagger is read by the PHP client);
 * - a custom payment: `POST /finance/v1/folios/{id}/payments` `{method, amount: {amount,
 *   currency}, receipt}` → `201 {"id"}`, a folio refund `POST …/refunds` likewise; both take an
 *   `Idempotency-Key` (the PHP client's contract snapshot `tests/Contract/apaleo-api.json`;
 *   the n8n node's example bodies); listed at `GET …/payments` → `{"payments": [...]}` and
 *   `GET …/refunds` → `{"refunds": [...]}`. A second use of a key replays the first answer
 *   (INVENTED: as idempotency keys usually behave);
 * - webhooks: `POST /v1/subscriptions {endpointUrl, events, propertyIds}` → `{"id"}` after a
 *   health check posted to the endpoint (`topic: "system", type: "healthcheck"`); deliveries
 *   `{topic, type, id, accountId, propertyId, data: {entityId}, timestamp}` (apaleo.dev
 *   "Create a new subscription", "Webhooks payload").
 */

/**
 * What the next call of a route meets: an answer with this status (nothing done), the
 * connection dropped before anything is done (`drop`: Apaleo down), the work done and the
 * answer lost (`lose`: the connection closed instead), or no answer at all (`hang`).
 */
export type ApaleoFault = { status: number; retryAfter?: string; messages?: string[] } | 'drop' | 'lose' | 'hang';

export type ApaleoRoute =
  | 'token'
  | 'property'
  | 'reservation'
  | 'folios'
  | 'payments'
  | 'refunds'
  | 'post-payment'
  | 'post-refund'
  | 'subscribe'
  | 'unsubscribe';

export interface ApaleoCall {
  route: ApaleoRoute | 'other';
  /** When it came (epoch ms). */
  at: number;
  method: string;
  path: string;
  authorization: string | null;
  idempotencyKey: string | null;
  body: unknown;
}

export interface ApaleoFake {
  url: string;
  store: ApaleoStore;
  calls: ApaleoCall[];
  /** The next call of `route` meets `fault` (queued behind those already set). */
  failNext(route: ApaleoRoute, fault: ApaleoFault): void;
  /** While down, every call is dropped unanswered, the token's too. */
  setDown(down: boolean): void;
  /** A reservation event, posted to every subscription that wants it; answers each endpoint's status. */
  deliver(
    type: string,
    reservationId: string,
    opts?: { propertyId?: string; eventId?: string },
  ): Promise<{ endpointUrl: string; status: number }[]>;
  close(): Promise<void>;
}

/** Apaleo's payment methods payreq may send (PHP client `PaymentMethod`; `Psp*`, `Invoice` only come back). */
const METHODS = new Set([
  'Cash',
  'BankTransfer',
  'CreditCard',
  'Amex',
  'VisaCredit',
  'VisaDebit',
  'MasterCard',
  'MasterCardDebit',
  'Maestro',
  'GiroCard',
  'DiscoverCard',
  'Diners',
  'Jcb',
  'BookingCom',
  'VPay',
  'PayPal',
  'Postcard',
  'Reka',
  'Twint',
  'Lunchcheck',
  'Voucher',
  'ChinaUnionPay',
  'Other',
  'Cheque',
  'Airbnb',
  'HolidayCheck',
]);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

const messages = (...m: string[]) => ({ messages: m });

function routeOf(method: string, path: string): ApaleoRoute | 'other' {
  if (method === 'POST' && path === '/connect/token') return 'token';
  if (method === 'GET' && /^\/inventory\/v1\/properties\/[^/]+$/.test(path)) return 'property';
  if (method === 'GET' && /^\/booking\/v1\/reservations\/[^/]+$/.test(path)) return 'reservation';
  if (method === 'GET' && path === '/finance/v1/folios') return 'folios';
  if (/^\/finance\/v1\/folios\/[^/]+\/payments$/.test(path)) return method === 'POST' ? 'post-payment' : 'payments';
  if (/^\/finance\/v1\/folios\/[^/]+\/refunds$/.test(path)) return method === 'POST' ? 'post-refund' : 'refunds';
  if (method === 'POST' && path === '/v1/subscriptions') return 'subscribe';
  if (method === 'DELETE' && /^\/v1\/subscriptions\/[^/]+$/.test(path)) return 'unsubscribe';
  return 'other';
}

function entryJson(e: FakeFolioEntry, kind: 'payment' | 'refund') {
  return {
    id: e.id,
    ...(kind === 'payment' ? { type: 'Custom', status: 'Successful' } : { type: 'Custom', status: 'Successful' }),
    method: e.method,
    amount: e.amount,
    receipt: e.receipt,
    paymentDate: e.paymentDate,
    businessDate: e.businessDate,
  };
}

function folioJson(f: FakeFolio) {
  return {
    id: f.id,
    type: f.type,
    status: f.status,
    isMainFolio: f.isMainFolio,
    reservation: { id: f.reservationId },
    property: { id: f.propertyId },
    balance: {
      amount: f.payments.reduce((s, p) => s + p.amount.amount, 0) - f.refunds.reduce((s, r) => s + r.amount.amount, 0),
      currency: f.currency,
    },
  };
}

export async function startApaleoFake(): Promise<ApaleoFake> {
  const store = apaleoStore();
  const calls: ApaleoCall[] = [];
  const faults = new Map<ApaleoRoute, ApaleoFault[]>();
  /** Answers per Idempotency-Key: a key used again replays the first answer. */
  const idempotent = new Map<string, { body: string; status: number; answer: unknown }>();
  let down = false;
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, messages(`fake: ${(err as Error).message}`));
    });
  });

  /** Whether the call carries a live token. */
  const authorized = (req: IncomingMessage) => {
    const auth = req.headers.authorization ?? '';
    return auth.startsWith('Bearer ') && store.tokens.has(auth.slice(7));
  };

  /** The Webhook API: its health check goes out to the endpoint before the subscription is answered. */
  const subscribe = async (body: unknown): Promise<{ status: number; body: unknown }> => {
    const b = (body ?? {}) as { endpointUrl?: unknown; events?: unknown; propertyIds?: unknown };
    if (typeof b.endpointUrl !== 'string' || !Array.isArray(b.events))
      return { status: 422, body: messages('endpointUrl and events are required') };
    const propertyIds = Array.isArray(b.propertyIds) ? b.propertyIds.map(String) : [];
    const check = await fetch(b.endpointUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: randomUUID(),
        topic: 'system',
        type: 'healthcheck',
        accountId: 'FAKE',
        propertyIds,
        timestamp: Date.now(),
      }),
    }).catch(() => undefined);
    if (!check || check.status >= 300)
      return { status: 422, body: messages('The endpoint did not answer the health check') };
    const id = randomUUID();
    store.subscriptions.set(id, { id, endpointUrl: b.endpointUrl, events: b.events.map(String), propertyIds });
    return { status: 201, body: { id } };
  };
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const route = routeOf(method, path);
    calls.push({
      route,
      at: Date.now(),
      method,
      path,
      authorization: req.headers.authorization ?? null,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      body,
    });
    if (down) {
      req.socket.destroy();
      return;
    }
    const fault = route === 'other' ? undefined : faults.get(route)?.shift();
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      hanging.add(res);
      return;
    }
    if (fault && typeof fault === 'object') {
      send(
        res,
        fault.status,
        messages(...(fault.messages ?? [`fake: ${fault.status}`])),
        fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
      );
      return;
    }
    const answer: { status: number; body?: unknown; headers?: Record<string, string> } =
      route === 'subscribe'
        ? authorized(req)
          ? await subscribe(body)
          : { status: 401 }
        : handle(route, method, path, url.searchParams, body, raw, req);
    if (fault === 'lose') {
      req.socket.destroy();
      return;
    }
    send(res, answer.status, answer.body, answer.headers);
  }

  function handle(
    route: ApaleoRoute | 'other',
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    raw: string,
    req: IncomingMessage,
  ): { status: number; body?: unknown; headers?: Record<string, string> } {
    if (route === 'token') {
      const auth = req.headers.authorization ?? '';
      const [id, secret] = Buffer.from(auth.replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(/:(.*)/s);
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') !== 'client_credentials')
        return { status: 400, body: { error: 'unsupported_grant_type' } };
      if (!id || store.clients.get(id) !== secret) return { status: 400, body: { error: 'invalid_client' } };
      return {
        status: 200,
        body: { access_token: store.issueToken(id), expires_in: 3600, token_type: 'Bearer', scope: 'folios.manage' },
      };
    }
    if (!authorized(req)) return { status: 401 };
    const seg = path.split('/').map(decodeURIComponent);
    switch (route) {
      case 'property': {
        const p = store.properties.get(seg[4] ?? '');
        if (!p) return { status: 404, body: messages(`Property with id ${seg[4]} not found`) };
        return {
          status: 200,
          body: { id: p.id, code: p.id, name: p.name, currencyCode: p.currencyCode, timeZone: 'Europe/Berlin' },
        };
      }
      case 'reservation': {
        const r = store.reservations.get(seg[4] ?? '');
        if (!r) return { status: 404, body: messages(`Reservation with id ${seg[4]} not found`) };
        return {
          status: 200,
          body: {
            id: r.id,
            bookingId: r.id.split('-')[0],
            status: r.status,
            property: { id: r.propertyId },
            arrival: `${r.arrival}T15:00:00+01:00`,
            departure: `${r.departure}T11:00:00+01:00`,
            primaryGuest: r.primaryGuest,
            totalGrossAmount: r.totalGrossAmount,
            balance: r.balance,
            timeSlices: r.nights.map((n, i) => ({ from: `night ${i + 1}`, totalGrossAmount: n })),
          },
        };
      }
      case 'folios': {
        const ids = (query.get('reservationIds') ?? '').split(',').filter(Boolean);
        const list = store.folios.filter((f) => ids.length === 0 || ids.includes(f.reservationId));
        if (list.length === 0) return { status: 204 };
        return { status: 200, body: { folios: list.map(folioJson), count: list.length } };
      }
      case 'payments':
      case 'refunds': {
        const f = store.folio(seg[4] ?? '');
        if (!f) return { status: 404, body: messages(`Folio with id ${seg[4]} not found`) };
        const list = route === 'payments' ? f.payments : f.refunds;
        if (list.length === 0) return { status: 204 };
        return {
          status: 200,
          body: {
            [route]: list.map((e) => entryJson(e, route === 'payments' ? 'payment' : 'refund')),
            count: list.length,
          },
        };
      }
      case 'post-payment':
      case 'post-refund':
        return post(route, seg[4] ?? '', body, raw, req);
      case 'unsubscribe': {
        const gone = store.subscriptions.delete(seg[3] ?? '');
        return gone ? { status: 204 } : { status: 404, body: messages('Subscription not found') };
      }
      default: {
        // `POST …/payments/{id}/refunds`: a refund at Apaleo's own payment provider. Recorded, never to be used.
        const psp = /^\/finance\/v1\/folios\/([^/]+)\/payments\/([^/]+)\/refunds$/.exec(path);
        if (method === 'POST' && psp) {
          store.folio(decodeURIComponent(psp[1] ?? ''))?.pspRefunds.push({ paymentId: psp[2] ?? '', body });
          return { status: 201, body: { id: store.newId('PSPREF-') } };
        }
        return { status: 404, body: messages('fake: no such endpoint') };
      }
    }
  }

  function post(
    route: 'post-payment' | 'post-refund',
    folioId: string,
    body: unknown,
    raw: string,
    req: IncomingMessage,
  ) {
    const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
    if (key) {
      const seen = idempotent.get(`${route}:${key}`);
      if (seen && seen.body === raw) return { status: seen.status, body: seen.answer };
      if (seen) return { status: 422, body: messages('The idempotency key was used with another request') };
    }
    const f = store.folio(folioId);
    const b = (body ?? {}) as {
      method?: unknown;
      amount?: { amount?: unknown; currency?: unknown };
      receipt?: unknown;
    };
    let answer: { status: number; body: unknown };
    if (!f) answer = { status: 404, body: messages(`Folio with id ${folioId} not found`) };
    else if (typeof b.method !== 'string' || !METHODS.has(b.method))
      answer = { status: 422, body: messages(`The method ${String(b.method)} is not allowed`) };
    else if (typeof b.amount?.amount !== 'number' || b.amount.amount <= 0 || typeof b.amount.currency !== 'string')
      answer = { status: 422, body: messages('The amount must be a positive monetary value') };
    else if (b.amount.currency !== f.currency)
      answer = {
        status: 422,
        body: messages(`The currency ${b.amount.currency} does not match the folio's ${f.currency}`),
      };
    else if (f.status !== 'Open') answer = { status: 422, body: messages(`The folio ${f.id} is closed`) };
    else {
      const entry: FakeFolioEntry = {
        id: `${f.id}-${route === 'post-payment' ? 'P' : 'R'}${f.payments.length + f.refunds.length + 1}`,
        method: b.method,
        amount: { amount: b.amount.amount, currency: b.amount.currency },
        receipt: typeof b.receipt === 'string' ? b.receipt : '',
        businessDate: new Date().toISOString().slice(0, 10),
        paymentDate: new Date().toISOString(),
        idempotencyKey: key,
      };
      (route === 'post-payment' ? f.payments : f.refunds).push(entry);
      answer = { status: 201, body: { id: entry.id } };
    }
    if (key && answer.status < 500)
      idempotent.set(`${route}:${key}`, { body: raw, status: answer.status, answer: answer.body });
    return answer;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    store,
    calls,
    failNext(route, fault) {
      const queue = faults.get(route) ?? [];
      queue.push(fault);
      faults.set(route, queue);
    },
    setDown(value) {
      down = value;
    },
    async deliver(type, reservationId, opts = {}) {
      const reservation = store.reservations.get(reservationId);
      const propertyId = opts.propertyId ?? reservation?.propertyId ?? '';
      const out: { endpointUrl: string; status: number }[] = [];
      for (const s of store.subscriptions.values()) {
        const wanted = s.events.some((e) => e === `reservation/${type}` || e === 'reservation/*');
        if (!wanted || (s.propertyIds.length > 0 && !s.propertyIds.includes(propertyId))) continue;
        const r = await fetch(s.endpointUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            topic: 'Reservation',
            type,
            id: opts.eventId ?? randomUUID(),
            accountId: 'FAKE',
            propertyId,
            timestamp: Date.now(),
            data: { entityId: reservationId },
          }),
        });
        await r.arrayBuffer();
        out.push({ endpointUrl: s.endpointUrl, status: r.status });
      }
      return out;
    },
    async close() {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
