import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { generateApiKey } from '../../src/api/index.js';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { type Database, type Repositories, repositories } from '../../src/db/index.js';
import type { PaymentProvider } from '../../src/providers/index.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './database.js';

export { ENGINE };

export interface TenantWithKey {
  tenantId: string;
  key: string;
  prefix: string;
  headers: Record<string, string>;
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
  /** app.inject with the default tenant's key unless headers say otherwise. */
  call(opts: InjectOptions & { tenant?: TenantWithKey }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  provider?: PaymentProvider;
  now?: () => Date;
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
  const k = generateApiKey();
  await repos.apiKeys.insert({
    tenantId: t.id,
    prefix: k.prefix,
    secretHash: k.secretHash,
    label: 'tests',
    expiresAt: null,
  });
  return { tenantId: t.id, key: k.key, prefix: k.prefix, headers: { 'x-api-key': k.key } };
}

/** The real app, in-process, on a fresh database of the engine under test. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: testDb.url, AUTH_CACHE_MS: '0', ...options.env });
  const app = await buildApp({ config, db: testDb.db, provider: options.provider, now: options.now });
  await app.ready();
  const repos = repositories(testDb.db);
  const tenant = await newTenant(repos);
  return {
    app,
    db: testDb.db,
    repos,
    config,
    testDb,
    tenant,
    newTenant: (name, opts) => newTenant(repos, name, opts),
    call({ tenant: t = tenant, ...opts }) {
      return app.inject({ ...opts, headers: { ...t.headers, ...(opts.headers ?? {}) } });
    },
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
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
