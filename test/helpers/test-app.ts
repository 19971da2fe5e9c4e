import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { generateApiKey } from '../../src/api-keys/index.ts';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig, PASSWORD_HASH_COST } from '../../src/config/index.ts';
import { type Database, type Repositories, repositories } from '../../src/db/index.ts';
import type { PaymentProvider } from '../../src/providers/index.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from './database.ts';
import { contractOf, type OpenApiContract, type OpenApiDocument } from './openapi-contract.ts';

export { ENGINE };

export interface TenantWithKey {
  tenantId: string;
  key: string;
  prefix: string;
  headers: Record<string, string>;
}

/** What the client saw of one response, kept for auditResponses(). */
export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  requestId: string | undefined;
  contentType: string | undefined;
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  repos: Repositories;
  config: Config;
  testDb: TestDatabase;
  /** A tenant with an active key, ready to call the API. */
  tenant: TenantWithKey;
  newTenant(name?: string, opts?: { createRateLimit?: number }): Promise<TenantWithKey>;
  /** A further key for an existing tenant. */
  newKey(tenantId: string, opts?: { expiresAt?: Date | null }): Promise<TenantWithKey>;
  /**
   * app.inject with the default tenant's key unless headers say otherwise; `tenant: null`
   * sends no key at all. Every response is recorded in `responses`, and every response of an
   * operation of the served OpenAPI document is checked against it (its status, body and
   * headers): one the document does not describe fails the call, naming what differs.
   */
  call(opts: InjectOptions & { tenant?: TenantWithKey | null }): Promise<LightMyRequestResponse>;
  responses: SeenResponse[];
  /** The served OpenAPI document as a checker (undefined when the app serves none: API_DOCS=off). */
  contract: OpenApiContract | undefined;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Wraps the app's real provider, e.g. to count or fail its calls. */
  provider?: (real: PaymentProvider) => PaymentProvider;
  now?: () => Date;
  /** Wraps the app's database connection, e.g. to hold a statement before it is sent. */
  database?: (real: Database) => Database;
  /** Sees each route as the app registers it. */
  onRoute?: (route: RouteOptions) => void;
  /** The queue worker's poll, with WORKERS=on (1 s unless told). */
  queuePollMs?: number;
}

export async function newTenant(
  repos: Repositories,
  name = 'Hôtel des Tests',
  opts: { createRateLimit?: number } = {},
) {
  const t = await repos.tenants.create({ name });
  if (opts.createRateLimit !== undefined) {
    await repos.tenants.setCreateRateLimit(t.id, opts.createRateLimit);
  }
  return newKey(repos, t.id);
}

export async function newKey(
  repos: Repositories,
  tenantId: string,
  opts: { expiresAt?: Date | null } = {},
): Promise<TenantWithKey> {
  const k = generateApiKey();
  await repos.apiKeys.insert({
    tenantId,
    prefix: k.prefix,
    secretHash: k.secretHash,
    label: 'tests',
    expiresAt: opts.expiresAt ?? null,
  });
  return { tenantId, key: k.key, prefix: k.prefix, headers: { 'x-api-key': k.key } };
}

/** The real app, in-process, on a fresh database of the engine under test. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = await createTestDatabase();
  // Background loops (the sandbox's notification retries) stay off unless a test asks for them
  // with WORKERS=on: a loop polling this database would add statements a test counts.
  // Back-office passwords hashed at scrypt's lowest cost: hundreds of sign-ins in the suite whose
  // subject is not the hash, at about 250 ms of CPU each at today's cost. The tests of the hash
  // itself set today's (test/security/back-office-passwords.test.ts), and an app started as in
  // production keeps it (production refuses less).
  const production = options.env?.NODE_ENV === 'production';
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: testDb.url,
    AUTH_CACHE_MS: '0',
    WORKERS: 'off',
    ...(production ? {} : { PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.lowest) }),
    ...options.env,
  });
  const app = await buildApp({
    config,
    db: options.database ? options.database(testDb.db) : testDb.db,
    wrapProvider: options.provider,
    now: options.now,
    onRoute: options.onRoute,
    queuePollMs: options.queuePollMs,
  });
  await app.ready();
  const repos = repositories(testDb.db);
  const tenant = await newTenant(repos);
  const responses: SeenResponse[] = [];
  const served = config.apiDocs ? await app.inject({ method: 'GET', url: '/api/openapi.json' }) : undefined;
  const contract = served?.statusCode === 200 ? contractOf(served.json() as OpenApiDocument) : undefined;
  return {
    app,
    db: testDb.db,
    repos,
    config,
    testDb,
    tenant,
    responses,
    contract,
    newTenant: (name, opts) => newTenant(repos, name, opts),
    newKey: (tenantId, opts) => newKey(repos, tenantId, opts),
    async call({ tenant: t = tenant, ...opts }) {
      const headers = { ...(t ? t.headers : {}), ...((opts.headers as Record<string, string>) ?? {}) };
      const r = await app.inject({ ...opts, headers });
      const requestId = r.headers['x-request-id'];
      const contentType = r.headers['content-type'];
      responses.push({
        method: String(opts.method ?? 'GET'),
        url: String(opts.url ?? ''),
        status: r.statusCode,
        requestId: typeof requestId === 'string' ? requestId : undefined,
        contentType: typeof contentType === 'string' ? contentType : undefined,
      });
      const method = String(opts.method ?? 'GET');
      const problems = contract?.checkResponse({
        method,
        url: String(opts.url ?? ''),
        status: r.statusCode,
        headers: r.headers,
        body: r.body,
      });
      if (problems && problems.length > 0) {
        assert.fail(`the answer is not the one the OpenAPI document describes:\n${problems.join('\n')}`);
      }
      return r;
    },
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}

/**
 * The service's promise for every response a test file made: an X-Request-Id on each, and no 500 ever
 * (`allowed` lists the 5xx a file provokes on purpose, such as the provider's 502).
 */
export function auditResponses(t: TestApp, allowed: readonly number[] = []): void {
  assert.ok(t.responses.length > 0, 'no response was recorded');
  for (const r of t.responses) {
    assert.ok(r.requestId && r.requestId.length > 0, `${r.method} ${r.url} (${r.status}) had no x-request-id`);
    if (r.status >= 500) assert.ok(allowed.includes(r.status), `${r.method} ${r.url} answered ${r.status}`);
  }
}

/** Rows in payment_requests, all tenants: what a refused request must leave unchanged. */
export async function countRows(db: Database, tenantId?: string): Promise<number> {
  const r = tenantId
    ? await db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_requests WHERE tenant_id = $1', [tenantId])
    : await db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_requests');
  return r.rows[0]?.n ?? -1;
}

/** A valid create body; override what the test is about. */
export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request_type: 'IMPRINT',
    amount: 150,
    currency: 'EUR',
    guest_email: 'jeanne.martin@example.com',
    guest_first_name: 'Jeanne',
    guest_last_name: 'Martin',
    guest_phone: '+33612345678',
    language: 'fr',
    reservation_ref: 'RES-1001',
    reservation_data: { checkin: '2026-12-24', checkout: '2026-12-27', room_type: 'Double' },
    ...overrides,
  };
}

/** Creates a request through the API and returns its 201 body. */
export async function createRequest(
  t: TestApp,
  overrides: Record<string, unknown> = {},
  tenant: TenantWithKey = t.tenant,
): Promise<{ uuid: string; reference: string; status: string; payment_link: string }> {
  const r = await t.call({ method: 'POST', url: '/api/payment-requests/', payload: createBody(overrides), tenant });
  assert.equal(r.statusCode, 201, r.body);
  return r.json();
}
