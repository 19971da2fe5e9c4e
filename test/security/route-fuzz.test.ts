import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { RouteOptions } from 'fastify';
import { signAnswer } from '../../src/providers/lyra/index.ts';
import { setTenantLogo } from '../../src/tenants/index.ts';
import { ControlClient, createUser } from '../control/control-client.ts';
import { LYRA_CARDS } from '../fakes/lyra/fake-store.ts';
import { giveLyraAccount } from '../fakes/lyra/give-account.ts';
import { DEMO_SHOP, formTokenOf, type LyraFake, startLyraFake } from '../fakes/lyra/lyra-fake.ts';
import { arrangeStatus } from '../helpers/fixtures.ts';
import { makePng } from '../helpers/images.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { schemaArbitrary } from '../helpers/openapi-arbitrary.ts';
import { contractOf, type OpenApiDocument } from '../helpers/openapi-contract.ts';
import { ipnSignature } from '../helpers/sandbox-checkout.ts';
import { createRequest, ENGINE } from '../helpers/test-app.ts';
import {
  BROKEN_ESCAPES,
  CONTROL_CHARACTERS,
  encodedValue,
  hostileJson,
  hostileText,
  leafPaths,
  pct,
  wireHeaderValue,
  withLeaf,
} from './hostile-values.ts';
import { type Pairs, routePattern, type SeenForm, type SeenQuery, scrape } from './page-forms.ts';
import { rawExchange, readyOverHttp, statusOf } from './raw-http.ts';

/**
 * Every route the app registers, found as it registers them (a new route is fuzzed without
 * editing this file), called with hostile paths, queries, headers, forms, JSON and multipart
 * bodies, by each kind of caller (API key; back office signed out, superuser and hotel user,
 * with a valid CSRF token; anonymous guest, provider and sandbox), and over a real socket with
 * bytes no HTTP client library would send. After every case: no 5xx, and /readyz still 200.
 *
 * Each case is what a real caller would send (real ids, a form the page gave with its CSRF
 * token, the API's own examples, a notification the provider signed) changed in one or two
 * places, so that the hostile value reaches the handler rather than the first check.
 *
 * Bounded for the normal suite: FUZZ_RUNS cases per route and caller (default 6), half as many
 * raw-socket cases per route, with a fixed seed so a failure replays; FUZZ_SEED picks another.
 * A longer run (docs/development.md, Testing): FUZZ_RUNS=200 FUZZ_SEED=$RANDOM npm test -- <this file>
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const SEED = Number(process.env.FUZZ_SEED ?? 270_007);
const RAW_RUNS = Math.max(1, Math.ceil(RUNS / 2));
/** Cases per API operation of the fuzz from the document's own schemas (FUZZ_VALID_RUNS). */
const VALID_RUNS = Number(process.env.FUZZ_VALID_RUNS ?? 12);

interface FuzzRoute {
  method: string;
  url: string;
  params: string[];
  bodyKeys: string[];
  queryKeys: string[];
}

type Caller = 'api key' | 'anonymous' | 'signed out' | 'superuser' | 'hotel user';

function schemaKeys(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

function collect(routes: FuzzRoute[]) {
  return (r: RouteOptions) => {
    for (const method of [r.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      if (routes.some((x) => x.method === method && x.url === r.url)) continue;
      routes.push({
        method,
        url: r.url,
        params: [...r.url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*'),
        bodyKeys: schemaKeys(r.schema?.body),
        queryKeys: schemaKeys(r.schema?.querystring),
      });
    }
  };
}

describe(`every route under hostile input: never a 5xx, and the service keeps answering (${ENGINE})`, {
  timeout: 600_000,
}, () => {
  const routes: FuzzRoute[] = [];
  let t: ListeningApp;
  let port: number;
  const clients = new Map<Caller, ControlClient>();
  const forms: SeenForm[] = [];
  const queries: SeenQuery[] = [];
  const jsonExamples = new Map<string, Record<string, unknown>>();
  let pools: Record<string, string[]> = {};
  const allReal: string[] = [];
  let lyraFake: LyraFake;
  /** A notification Lyra signed for a real payment of the second tenant (its account is on the fake). */
  let lyraIpn: Pairs = [];

  /** The requests whose ids fill paths and fields, one in each status worth reaching. */
  const SEEDED_STATUSES = ['NOT_INITIATED', 'AUTHORISED_TO_VALIDATE', 'CAPTURED', 'NOT_INITIATED'] as const;
  const requests: string[] = [];

  async function seededRequest(status: (typeof SEEDED_STATUSES)[number]): Promise<string> {
    const { uuid } = await createRequest(t, {
      reservation_ref: `FUZZ-${status}`,
      request_type: 'IMPRINT',
      amount: 100,
    });
    if (status !== 'NOT_INITIATED') {
      await arrangeStatus(t.db, uuid, status, status === 'CAPTURED' ? { amountCaptured: 10_000 } : {});
    }
    return uuid;
  }

  /** A case may have deleted, cancelled or captured one: the next route gets them fresh. */
  async function freshRequests(): Promise<void> {
    for (const [i, status] of SEEDED_STATUSES.entries()) requests[i] = await seededRequest(status);
  }

  /**
   * A browser's session for each back-office caller: signed in, or signed out having opened the
   * sign-in page (so its form carries a valid CSRF token and reaches the sign-in handler).
   */
  async function session(caller: 'signed out' | 'superuser' | 'hotel user'): Promise<ControlClient> {
    const ip = { 'signed out': '10.0.0.3', superuser: '10.0.0.1', 'hotel user': '10.0.0.2' }[caller];
    const c = new ControlClient(t, ip);
    if (caller === 'signed out') await c.get('/control/sign-in');
    else {
      // A fuzzed settings form may have ticked "require two-factor sign-in" (the hotel user
      // would then be sent to set one up): the sessions are plain password ones.
      await t.db.query('UPDATE tenants SET require_2fa = false');
      await c.signedIn(caller === 'superuser' ? 'fuzz-root' : 'fuzz-hotel');
      await c.get('/control/requests');
    }
    clients.set(caller, c);
    return c;
  }

  before(async () => {
    t = await startListeningApp({
      onRoute: collect(routes),
      env: { CREATE_RATE_LIMIT: '0', REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '2000' },
    });
    port = Number(new URL(t.baseUrl).port);
    for (const status of SEEDED_STATUSES) requests.push(await seededRequest(status));
    const other = await t.newTenant('Hôtel Voisin');
    // The second tenant takes payments with Lyra (a loopback fake): its guest page, browser
    // return and notifications are reached too.
    lyraFake = await startLyraFake();
    await giveLyraAccount(t, other.tenantId, lyraFake);
    const lyraDeposit = await createRequest(
      t,
      { reservation_ref: 'FUZZ-LYRA', request_type: 'DEPOSIT', amount: 123.45 },
      other,
    );
    await arrangeStatus(t.db, lyraDeposit.uuid, 'PENDING');
    const lyraForm = await (await t.app.payreq.providers.forTenant(other.tenantId)).startGuestPayment({
      paymentRequestId: lyraDeposit.uuid,
      reference: lyraDeposit.reference,
      requestType: 'DEPOSIT',
      amountCents: 12345,
      currency: 'EUR',
      language: 'en',
      guestEmail: 'guest@example.test',
      merchantName: 'Hôtel Voisin',
      returnUrl: `${t.baseUrl}/payment/${lyraDeposit.uuid}/result/`,
      notifyUrl: `${t.baseUrl}/ipn/lyra/`,
    });
    lyraIpn = [...new URLSearchParams(lyraFake.completeForm(formTokenOf(lyraForm), LYRA_CARDS.accepted).ipnBody)];
    requests.push(lyraDeposit.uuid);
    const victimKey = await t.newKey(t.tenant.tenantId);
    await createUser(t, 'fuzz-root');
    await createUser(t, 'fuzz-hotel', t.tenant.tenantId);
    await createUser(t, 'victim', other.tenantId);
    const logo = await setTenantLogo(t.repos, t.tenant.tenantId, makePng(4, 2));
    const jobs = (await t.repos.schedules.list()).map((s) => s.job);
    const batch = randomUUID();
    pools = {
      uuid: requests,
      id: requests,
      orderId: requests,
      batch: [batch],
      tenant: [t.tenant.tenantId, other.tenantId],
      prefix: [victimKey.prefix],
      hash: [String(logo.after.logo_hash)],
      file: ['1f4e79.css', 'FFFFFF.css'],
      language: ['en', 'fr', 'de'],
      provider: ['sandbox', 'lyra'],
      action: ['capture', 'release', 'refund', 'cancel', 'delete', 'resend', 'disable', 'enable', 'revoke', 'run'],
      job: jobs,
      username: ['victim'],
      '*': ['json', 'static/index.html', 'yaml'],
    };
    for (const values of Object.values(pools)) allReal.push(...values);
    assert.ok(routes.length >= 40, `only ${routes.length} routes seen`);

    // What a real caller sees first: every page, signed in, with its forms and links.
    const root = await session('superuser');
    await session('hotel user');
    const anonymous = await session('signed out');
    for (const r of routes.filter((x) => x.method === 'GET')) {
      const path = r.url.replace(/:(\w+)|\*/g, (_m, name: string | undefined) => pools[name ?? '*']?.[0] ?? 'x');
      const pages = r.url.startsWith('/control')
        ? [await root.get(path), await anonymous.get(path)]
        : [await t.app.inject({ method: 'GET', url: path })];
      for (const page of pages) {
        if (String(page.headers['content-type']).startsWith('text/html')) scrape(page.body, forms, queries);
      }
    }
    const document = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>>;
    };
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const example = op.requestBody?.content?.['application/json']?.example;
        if (example && typeof example === 'object') {
          jsonExamples.set(
            `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
            example as Record<string, unknown>,
          );
        }
      }
    }
    assert.ok(forms.length > 10, `only ${forms.length} forms seen`);
    // The service's own first answers were all fine.
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });
  after(async () => {
    await t.close();
    await lyraFake?.close();
  });

  function callersOf(route: FuzzRoute): Caller[] {
    if (route.url.startsWith('/control')) return ['signed out', 'superuser', 'hotel user'];
    if (route.url.startsWith('/api/') && !route.url.startsWith('/api/docs') && route.url !== '/api/openapi.json') {
      return ['api key'];
    }
    return ['anonymous'];
  }

  const poolOf = (name: string): string[] => (Object.hasOwn(pools, name) ? (pools[name] ?? []) : []);
  // The sessions' own usernames stay out: sign-in attempts with them would throttle their next sign-in.
  const queryReal = (key: string) =>
    [...new Set([...poolOf(key), ...queries.filter((q) => q.key === key).map((q) => q.value)])].filter(
      (v) => !v.startsWith('fuzz-'),
    );
  const matches = (route: FuzzRoute, path: string) => routePattern(route.url).test(new URL(path, t.baseUrl).pathname);

  /** The forms a route receives, by the action they post to (query string aside). */
  const formsFor = (route: FuzzRoute) => forms.filter((f) => matches(route, f.action));

  const HEADER_NAMES = [
    'accept-language',
    'x-request-id',
    'idempotency-key',
    'x-forwarded-for',
    'x-forwarded-proto',
    'x-forwarded-host',
    'cookie',
    'if-none-match',
    'authorization',
    'x-api-key',
    'x-sandbox-signature',
    'origin',
    'referer',
    'accept',
    'range',
    'content-type',
  ];

  /** What the sandbox notifies, about a real order: the base of the IPN cases (signed or not). */
  const ipnBase = () => ({
    event_id: randomUUID(),
    order_id: poolOf('uuid')[0],
    outcome: 'paid',
    transaction_id: 'txn_fuzz',
    amount: 100,
    currency: 'EUR',
    created_at: new Date().toISOString(),
  });

  interface Body {
    kind: 'none' | 'form' | 'multipart' | 'json' | 'other';
    contentType?: string;
    /** Form and multipart fields, or a JSON object, before encoding; `raw` wins when set. */
    fields?: Pairs;
    json?: Record<string, unknown>;
    raw?: Buffer;
  }

  /** The API and the notifications take JSON; every other form posts as a browser does. */
  const takesJson = (route: FuzzRoute) => route.url.startsWith('/api/') || route.url.startsWith('/ipn');

  /** The request a well-behaved caller of this route would send: real ids, a form the page gave. */
  function baselineArb(route: FuzzRoute): fc.Arbitrary<{ params: string[]; query: Pairs; body: Body }> {
    const params = fc.tuple(
      ...route.params.map((name) => fc.constantFrom(...(poolOf(name).length > 0 ? poolOf(name) : ['x']))),
    );
    const linkQueries = queries.filter((q) => matches(route, q.path));
    const query =
      linkQueries.length > 0
        ? fc.subarray(
            linkQueries.map((q): [string, string] => [q.key, q.value]),
            // At most the pairs there are (a page with one link query, the Team page's chooser).
            { maxLength: Math.min(2, linkQueries.length) },
          )
        : fc.constant<Pairs>([]);
    let body: fc.Arbitrary<Body> = fc.constant({ kind: 'none' });
    if (route.method !== 'GET') {
      const seen = formsFor(route);
      const example = jsonExamples.get(`${route.method} ${route.url}`);
      if (route.url.startsWith('/ipn')) {
        // Each provider's own notification, as it would send it.
        return fc.constantFrom('sandbox', 'lyra').map((provider) => ({
          params: [provider],
          query: [],
          body:
            provider === 'sandbox'
              ? { kind: 'json' as const, json: ipnBase() }
              : { kind: 'form' as const, fields: lyraIpn.map(([k, v]): [string, string] => [k, v]) },
        }));
      }
      if (route.url.startsWith('/api/')) body = fc.constant({ kind: 'json', json: { ...(example ?? {}) } });
      else if (seen.length > 0) {
        body = fc.constantFrom(...seen).map((f) => ({
          kind: f.multipart ? 'multipart' : 'form',
          fields: f.fields.map(([k, v]): [string, string] => [k, v]),
        }));
      } else body = fc.constant({ kind: 'form', fields: route.url.startsWith('/control') ? [['_csrf', '']] : [] });
    }
    return fc.record({ params, query, body });
  }

  type Mutation =
    | { at: 'param'; index: number; value: string }
    | { at: 'query'; key: string; value: string }
    | { at: 'header'; name: string; value: string }
    | { at: 'field'; name: string; value: string }
    | { at: 'json'; name: string; value: unknown }
    | { at: 'body'; body: Body };

  const JSON_SPECIALS = [
    '{"amount":1,"amount":2}',
    '{"a":{"b":1,"b":2}}',
    '{"a":1,"\\u0061":2}',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    `${'['.repeat(40)}${']'.repeat(40)}`,
    '\ufeff{}',
    '[]',
    'null',
    '"x"',
    '1e999',
    '{"amount":1e999}',
    '{"amount":-0}',
    '',
  ];

  /** One hostile change to the baseline: a path, query, header, field or JSON value, or the whole body. */
  function mutationArb(route: FuzzRoute): fc.Arbitrary<Mutation> {
    const options: fc.WeightedArbitrary<Mutation>[] = [];
    if (route.params.length > 0) {
      options.push({
        weight: 2,
        arbitrary: fc
          .nat(route.params.length - 1)
          .chain((index) =>
            encodedValue(poolOf(route.params[index] ?? '')).map((value): Mutation => ({ at: 'param', index, value })),
          ),
      });
    }
    const keys = [
      ...new Set([
        ...route.queryKeys,
        ...queries.filter((q) => matches(route, q.path)).map((q) => q.key),
        'tenant',
        'after',
      ]),
    ];
    options.push({
      weight: 3,
      arbitrary: fc
        .oneof({ weight: 8, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: encodedValue() })
        .chain((key) => encodedValue(queryReal(key)).map((value): Mutation => ({ at: 'query', key, value }))),
    });
    options.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...HEADER_NAMES), wireHeaderValue)
        .map(([name, value]): Mutation => ({ at: 'header', name, value })),
    });
    if (route.method !== 'GET' && takesJson(route)) {
      const lyraAnswer = JSON.parse(new URLSearchParams(lyraIpn).get('kr-answer') ?? '{}') as unknown;
      const jsonKeys = [
        ...new Set([
          ...leafPaths(jsonExamples.get(`${route.method} ${route.url}`) ?? {}),
          ...route.bodyKeys,
          ...(route.url.startsWith('/ipn') ? [...leafPaths(ipnBase()), ...leafPaths(lyraAnswer)] : []),
          'amount',
        ]),
      ];
      options.push({
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom(...jsonKeys), hostileJson(allReal))
          .map(([name, value]): Mutation => ({ at: 'json', name, value })),
      });
    }
    if (route.method !== 'GET' && (!takesJson(route) || route.url.startsWith('/ipn'))) {
      const names = [
        ...new Set([
          ...formsFor(route).flatMap((f) => f.fields.map(([k]) => k)),
          ...(route.url.startsWith('/ipn') ? lyraIpn.map(([k]) => k) : []),
          ...route.bodyKeys,
          'tenant',
        ]),
      ];
      options.push({
        weight: 4,
        arbitrary: fc
          .constantFrom(...names)
          .chain((name) => hostileText(queryReal(name)).map((value): Mutation => ({ at: 'field', name, value }))),
      });
    }
    if (route.method !== 'GET') {
      options.push({ weight: 2, arbitrary: bodyArb().map((body): Mutation => ({ at: 'body', body })) });
    }
    return fc.oneof(...options);
  }

  /** A whole body of another kind: JSON that is not JSON for this API, bytes, forms cut short, nothing. */
  function bodyArb(): fc.Arbitrary<Body> {
    return fc.oneof(
      fc.constantFrom(...JSON_SPECIALS).map((text): Body => ({ kind: 'json', raw: Buffer.from(text) })),
      fc.uint8Array({ maxLength: 32 }).map((b): Body => ({ kind: 'json', raw: Buffer.from(b) })),
      fc
        .array(fc.tuple(fc.constantFrom('', 'a', '_csrf', 'amount', 'label'), fc.constantFrom(...BROKEN_ESCAPES)), {
          maxLength: 3,
        })
        .map((pairs): Body => ({ kind: 'form', raw: Buffer.from(pairs.map(([k, v]) => `${k}=${v}`).join('&')) })),
      fc
        .record({
          contentType: fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/json; charset=latin1',
            'multipart/form-data',
            'multipart/form-data; boundary=',
            `multipart/form-data; boundary=${'b'.repeat(300)}`,
            '*/*',
            '',
          ),
          raw: fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b)),
        })
        .map((b): Body => ({ kind: 'other', ...b })),
      fc.constant<Body>({ kind: 'none' }),
    );
  }

  /** Cut short: the Content-Length matches what is sent, the rest (a closing boundary) is gone. */
  const cutArb = fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() });

  interface Case {
    base: { params: string[]; query: Pairs; body: Body };
    mutations: Mutation[];
    cut: number | null;
    ip: string;
  }

  const caseArb = (route: FuzzRoute): fc.Arbitrary<Case> =>
    fc.record({
      base: baselineArb(route),
      mutations: fc.array(mutationArb(route), { minLength: 1, maxLength: 2 }),
      cut: cutArb,
      ip: fc.ipV4(),
    });

  const urlencoded = (pairs: Pairs) => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&');

  function multipart(pairs: Pairs, boundary: string): Buffer {
    const parts: Buffer[] = [];
    for (const [k, v] of pairs) {
      const file = k === 'logo';
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${k}"${file ? '; filename="logo.png"\r\nContent-Type: image/png' : ''}\r\n\r\n`,
        ),
        file && v === '' ? makePng(4, 2) : Buffer.from(v),
        Buffer.from('\r\n'),
      );
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return Buffer.concat(parts);
  }

  /** The caller's key or session and CSRF token, the baseline, then the case's changes, as inject options. */
  function requestOf(route: FuzzRoute, caller: Caller, c: Case) {
    const client = clients.get(caller);
    const params = [...c.base.params];
    const query: Pairs = c.base.query.map(([k, v]) => [pct(k), pct(v)]);
    const headers: Record<string, string> = {};
    if (caller === 'api key') headers['x-api-key'] = t.tenant.key;
    if (client) headers.cookie = client.cookieHeader();
    let body: Body = {
      ...c.base.body,
      fields: c.base.body.fields?.map(([k, v]): [string, string] => [k, k === '_csrf' && client ? client.csrf : v]),
    };
    const lyraNotification = route.url.startsWith('/ipn') && c.base.params[0] === 'lyra';
    for (const m of c.mutations) {
      if (m.at === 'param') params[m.index] = m.value;
      else if (m.at === 'query') query.push([m.key, m.value]);
      else if (m.at === 'header')
        headers[m.name] = m.name === 'cookie' && headers.cookie ? `${headers.cookie}; ${m.value}` : m.value;
      else if (m.at === 'field') {
        const fields = body.fields ?? [];
        const at = fields.findIndex(([k]) => k === m.name);
        if (at >= 0) fields[at] = [m.name, m.value];
        else fields.push([m.name, m.value]);
        body = { ...body, fields };
      } else if (m.at === 'json' && body.kind === 'form' && lyraNotification) {
        // Inside Lyra's signed answer, signed again below: what a provider could send.
        const fields = body.fields ?? [];
        const at = fields.findIndex(([k]) => k === 'kr-answer');
        const answer = JSON.parse(fields[at]?.[1] || '{}') as unknown;
        if (at >= 0) fields[at] = ['kr-answer', JSON.stringify(withLeaf(answer, m.name, m.value))];
        body = { ...body, fields };
      } else if (m.at === 'json') {
        body = { ...body, kind: 'json', json: withLeaf(body.json ?? {}, m.name, m.value) as Record<string, unknown> };
      } else body = m.body;
    }
    const hashMutated = c.mutations.some((m) => m.at === 'field' && m.name === 'kr-hash');
    if (lyraNotification && body.kind === 'form' && body.fields && !hashMutated) {
      const answer = body.fields.find(([k]) => k === 'kr-answer')?.[1] ?? '';
      body.fields = body.fields.map(([k, v]) => [k, k === 'kr-hash' ? signAnswer(DEMO_SHOP.password, answer) : v]);
    }
    let i = 0;
    const path = route.url.replace(/:(\w+)|\*/g, () => params[i++] ?? '');
    const url = `${path}${query.length > 0 ? `?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : ''}`;
    let payload: Buffer | undefined = body.raw;
    let contentType = body.contentType;
    if (!payload && body.kind === 'form') payload = Buffer.from(urlencoded(body.fields ?? []));
    if (!payload && body.kind === 'json') payload = Buffer.from(JSON.stringify(body.json ?? {}));
    if (!payload && body.kind === 'multipart') payload = multipart(body.fields ?? [], 'fuzzBoundary42');
    if (contentType === undefined && body.kind === 'form') contentType = 'application/x-www-form-urlencoded';
    if (contentType === undefined && body.kind === 'json') contentType = 'application/json';
    if (contentType === undefined && body.kind === 'multipart')
      contentType = 'multipart/form-data; boundary=fuzzBoundary42';
    if (payload && c.cut !== null) payload = payload.subarray(0, c.cut % (payload.length + 1));
    if (contentType !== undefined && !c.mutations.some((m) => m.at === 'header' && m.name === 'content-type')) {
      headers['content-type'] = contentType;
    }
    // The sandbox signs what it sends, so hostile bodies reach what follows the signature check
    // (unless the case is about the signature header itself).
    const signatureMutated = c.mutations.some((m) => m.at === 'header' && m.name === 'x-sandbox-signature');
    if (!signatureMutated && payload && path.startsWith('/ipn/sandbox')) {
      headers['x-sandbox-signature'] = ipnSignature(t.app.payreq.secretKey, payload.toString('utf8'));
    }
    return { url, headers, payload };
  }

  /** A path of the route: real ids mostly, a hostile value now and then. */
  function pathArb(route: FuzzRoute): fc.Arbitrary<string> {
    const values = route.params.map((name) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...(poolOf(name).length > 0 ? poolOf(name) : ['x'])) },
        { weight: 1, arbitrary: encodedValue(poolOf(name)) },
      ),
    );
    return fc.tuple(...values).map((filled) => {
      let i = 0;
      return route.url.replace(/:(\w+)|\*/g, () => filled[i++] ?? '');
    });
  }

  /** A case may have signed the session out: signed in again before the next route. */
  async function freshSession(caller: Caller): Promise<void> {
    if (caller === 'signed out') await session(caller);
    if (caller !== 'superuser' && caller !== 'hotel user') return;
    if ((await clients.get(caller)?.get('/control/requests'))?.statusCode !== 200) await session(caller);
  }

  test('the routes and pages were found', () => {
    for (const expected of [
      'POST /api/payment-requests/',
      'POST /control/keys',
      'POST /ipn/:provider/',
      'POST /sandbox/pay',
    ]) {
      assert.ok(
        routes.some((r) => `${r.method} ${r.url}` === expected),
        `${expected} among ${routes.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
  });

  describe('app.inject: path, query, headers, form, JSON and multipart', () => {
    test('every route and caller', async (s) => {
      let n = 0;
      for (const route of routes) {
        for (const caller of callersOf(route)) {
          await s.test(`${route.method} ${route.url} (${caller})`, async () => {
            await freshSession(caller);
            if (route.method !== 'GET') await freshRequests();
            await fc.assert(
              fc.asyncProperty(caseArb(route), async (c) => {
                const { url, headers, payload } = requestOf(route, caller, c);
                const r = await t.app.inject({
                  method: route.method as 'GET',
                  url,
                  headers,
                  remoteAddress: c.ip,
                  ...(payload ? { payload } : {}),
                });
                const what = () =>
                  [
                    `${route.method} ${url} as ${caller} answered ${r.statusCode}`,
                    `headers: ${JSON.stringify(headers)}`,
                    `body: ${JSON.stringify(payload?.toString('latin1').slice(0, 400) ?? '')}`,
                    `answer: ${r.body.slice(0, 300)}`,
                  ].join('\n');
                assert.ok(r.statusCode < 500, what());
                const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
                assert.equal(ready.statusCode, 200, `/readyz after ${what()}`);
              }),
              { numRuns: RUNS, seed: SEED + n++ },
            );
          });
        }
      }
    });
  });

  describe('a real socket: bytes in the request line and headers, bodies cut short', () => {
    const RAW_KINDS = ['target', 'header', 'short body', 'cut chunk', 'smuggle', 'long header'] as const;
    // Half the cases name the whole URL in the request line (the absolute form a proxy is sent,
    // which app.inject cannot send: it makes every URL a path): this host or another, any case,
    // with userinfo; payreq must answer as for the path alone.
    const rawArb = fc.record({
      kind: fc.constantFrom(...RAW_KINDS),
      origin: fc.oneof(
        fc.constant(''),
        fc.constantFrom(
          'http://127.0.0.1',
          'https://evil.example',
          'HTTP://Evil.Example:8443',
          'http://user:pass@evil.example',
          'http://[::1]:1',
        ),
      ),
      byte: fc.oneof(
        fc.constantFrom(...CONTROL_CHARACTERS),
        fc.integer({ min: 0x80, max: 0xff }).map((b) => String.fromCharCode(b)),
      ),
      cut: fc.nat(),
    });

    function rawRequest(
      route: FuzzRoute,
      path: string,
      r: { kind: (typeof RAW_KINDS)[number]; origin: string; byte: string; cut: number },
    ) {
      const cookie = route.url.startsWith('/control') ? `Cookie: ${clients.get('superuser')?.cookieHeader()}\r\n` : '';
      const key = route.url.startsWith('/api/') ? `X-API-Key: ${t.tenant.key}\r\n` : '';
      const head = (target: string, extra = '') =>
        `${route.method} ${r.origin}${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${cookie}${key}${extra}`;
      const body =
        route.url.startsWith('/api/') || route.url.startsWith('/ipn')
          ? '{"amount":12,"order_id":"x"}'
          : 'a=1&b=2&_csrf=x';
      const type = `Content-Type: ${route.url.startsWith('/api/') || route.url.startsWith('/ipn') ? 'application/json' : 'application/x-www-form-urlencoded'}\r\n`;
      switch (r.kind) {
        case 'target':
          return { bytes: Buffer.from(`${head(`${path}${r.byte}x`)}\r\n`, 'latin1'), halfClose: false };
        case 'header':
          return { bytes: Buffer.from(`${head(path, `X-Note: a${r.byte}b\r\n`)}\r\n`, 'latin1'), halfClose: false };
        case 'short body': {
          const sent = body.slice(0, r.cut % body.length);
          return {
            bytes: Buffer.from(`${head(path, `${type}Content-Length: ${body.length}\r\n`)}\r\n${sent}`),
            halfClose: true,
          };
        }
        case 'cut chunk':
          return {
            bytes: Buffer.from(
              `${head(path, `${type}Transfer-Encoding: chunked\r\n`)}\r\n${(body.length + 5).toString(16)}\r\n${body}`,
            ),
            halfClose: true,
          };
        case 'smuggle':
          return {
            bytes: Buffer.from(
              `${head(path, `${type}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n`)}\r\n0\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n`,
            ),
            halfClose: false,
          };
        case 'long header':
          return {
            bytes: Buffer.from(`${head(path, `X-Long: ${'y'.repeat(20_000 + (r.cut % 50_000))}\r\n`)}\r\n`),
            halfClose: false,
          };
      }
    }

    test('every route', async (s) => {
      let n = 0;
      for (const route of routes) {
        await s.test(`${route.method} ${route.url}`, async () => {
          await fc.assert(
            fc.asyncProperty(pathArb(route), rawArb, async (path, r) => {
              const { bytes, halfClose } = rawRequest(route, path, r);
              const answer = await rawExchange(port, bytes, halfClose);
              for (const line of answer.match(/^HTTP\/1\.[01] \d{3}[^\r]*/gm) ?? []) {
                assert.ok(
                  statusOf(line) < 500,
                  `${r.kind} ${JSON.stringify(r.byte)} on ${route.method} ${r.origin}${path}: ${answer.slice(0, 400)}`,
                );
              }
              assert.equal(await readyOverHttp(port), 200, `after ${r.kind} on ${route.method} ${r.origin}${path}`);
            }),
            { numRuns: RAW_RUNS, seed: SEED + n++ },
          );
        });
      }
    });
  });

  describe('what the OpenAPI document calls valid is never refused for a rule it leaves out', () => {
    /**
     * Refusals of a state or a moment (the request's status, what it holds, another call, a
     * limit per minute, the provider), which no schema can state: a valid call may meet them.
     */
    const NOT_RULES = new Set([
      'invalid_status',
      'capture_amount_too_high',
      'refund_amount_invalid',
      'cannot_delete',
      'not_found',
      'operation_in_progress',
      'idempotency_key_reused',
      'idempotency_key_in_progress',
      'rate_limited',
      'provider_refused',
      'provider_unavailable',
      'outcome_unknown',
    ]);
    /**
     * The body rules only the document's descriptions state: checkout not before checkin (no
     * schema compares two fields). The other two, on reservation_data's free keys (at most 16 KiB,
     * no NUL or unpaired surrogate in them), the generator keeps to: small plain values.
     */
    const DESCRIBED = new Set(['checkout_before_checkin']);

    type Operation = {
      parameters?: { name: string; in: string; required?: boolean; schema: unknown }[];
      requestBody?: { required?: boolean; content?: Record<string, { schema: unknown }> };
    };

    /** A request in the status the operation acts on, holding money where it moves some. */
    async function requestFor(template: string): Promise<string> {
      const { uuid } = await createRequest(t, {
        reservation_ref: `VALID-${randomUUID().slice(0, 8)}`,
        request_type: 'IMPRINT',
        amount: 1_000_000,
      });
      if (/capture|release|refund/.test(template)) await arrangeStatus(t.db, uuid, 'AUTHORISED_TO_VALIDATE');
      if (template.includes('refund')) {
        const captured = await t.app.inject({
          method: 'POST',
          url: `/api/payment-requests/${uuid}/capture/`,
          headers: t.tenant.headers,
        });
        assert.equal(captured.statusCode, 200, captured.body);
      }
      return uuid;
    }

    test('every operation, with queries, keys and bodies its schemas accept', async (s) => {
      const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument;
      const contract = contractOf(doc);
      let n = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, raw] of Object.entries(item)) {
          const op = raw as Operation;
          await s.test(`${method.toUpperCase()} ${template}`, async () => {
            const params = op.parameters ?? [];
            // An opaque cursor is one the service gave: no value of its schema names a page.
            const query = params.filter((p) => p.in === 'query' && p.name !== 'cursor');
            const key = params.find((p) => p.in === 'header' && p.name === 'idempotency-key');
            const bodySchema = op.requestBody?.content?.['application/json']?.schema;
            const body = bodySchema ? schemaArbitrary(bodySchema, doc) : fc.constant(undefined);
            const arb = fc.record({
              query: fc.record(Object.fromEntries(query.map((p) => [p.name, schemaArbitrary(p.schema, doc)])), {
                requiredKeys: query.filter((p) => p.required).map((p) => p.name),
              }) as fc.Arbitrary<Record<string, unknown>>,
              key: key ? fc.option(schemaArbitrary(key.schema, doc), { nil: undefined }) : fc.constant(undefined),
              body: op.requestBody?.required === false ? fc.option(body, { nil: undefined }) : body,
            });
            await fc.assert(
              fc.asyncProperty(arb, async (c) => {
                // Only what the document accepts, judged by the document itself.
                if (c.body !== undefined) fc.pre(contract.checkRequestBody(method, template, c.body).length === 0);
                for (const [name, v] of Object.entries(c.query)) {
                  fc.pre(contract.checkParameter(method, template, name, v).length === 0);
                }
                if (c.key !== undefined)
                  fc.pre(contract.checkParameter(method, template, 'idempotency-key', c.key).length === 0);
                const path = template.includes('{uuid}')
                  ? template.replace('{uuid}', await requestFor(template))
                  : template;
                const search = new URLSearchParams(Object.entries(c.query).map(([k, v]) => [k, String(v)]));
                const url = `${path}${search.size > 0 ? `?${search}` : ''}`;
                const headers: Record<string, string> = { ...t.tenant.headers };
                if (c.key !== undefined) headers['idempotency-key'] = String(c.key);
                if (c.body !== undefined) headers['content-type'] = 'application/json';
                const r = await t.app.inject({
                  method: method.toUpperCase() as 'GET',
                  url,
                  headers,
                  ...(c.body !== undefined ? { payload: JSON.stringify(c.body) } : {}),
                });
                const what = `${method.toUpperCase()} ${url} ${JSON.stringify(c.body)?.slice(0, 300)} answered ${r.statusCode} ${r.body.slice(0, 300)}`;
                assert.ok(r.statusCode < 500, what);
                assert.deepEqual(
                  contract.checkResponse({ method, url, status: r.statusCode, headers: r.headers, body: r.body }),
                  [],
                  what,
                );
                if (r.statusCode < 400) return;
                const answer = r.json() as { code: string; details?: { code?: string }[] };
                if (answer.code === 'validation_failed') {
                  assert.ok(
                    answer.details?.every((d) => DESCRIBED.has(d.code ?? '')),
                    `refused for a rule: ${what}`,
                  );
                } else assert.ok(NOT_RULES.has(answer.code), `refused for a rule: ${what}`);
              }),
              { numRuns: VALID_RUNS, seed: SEED + 5000 + n++ },
            );
          });
        }
      }
    });
  });
});
