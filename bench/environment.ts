import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generateApiKey } from '../src/api-keys/index.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import {
  type Database,
  migrate,
  openDatabase,
  parseDatabaseUrl,
  type Repositories,
  repositories,
} from '../src/db/index.ts';
import { type Listening, startBaseline } from './baseline.ts';

export type Engine = 'postgres' | 'pglite';

export const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789';

/**
 * What a PMS sends, through the TLS-terminating proxy production requires (the service refuses
 * the API over plain HTTP in production; TRUST_PROXY lets it read the proxy's header).
 */
export function apiHeaders(t: BenchTenant, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': t.key, 'x-forwarded-proto': 'https', ...extra };
}

export interface BenchTenant {
  id: string;
  key: string;
}

/** A fresh database of one engine: a new PostgreSQL database, or a new PGlite directory. */
export interface FreshDatabase {
  url: string;
  /** A libpq URL pgbench can use (PostgreSQL only). */
  libpqUrl?: string;
  drop(): Promise<void>;
}

export async function freshDatabase(engine: Engine, adminUrl: string, label: string): Promise<FreshDatabase> {
  if (engine === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), `payreq-bench-${label}-`));
    return { url: `pglite://${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `payreq_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    libpqUrl: u.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export async function openMigrated(url: string): Promise<Database> {
  const db = await openDatabase(parseDatabaseUrl(url));
  await migrate(db);
  return db;
}

/** `00000000-0000-4000-8000-0000000000NN`: numbered, so pgbench can name any tenant from an integer. */
export const TENANT_ID_PREFIX = '00000000-0000-4000-8000-';
export const tenantId = (n: number) => `${TENANT_ID_PREFIX}${String(n).padStart(12, '0')}`;

/** Tenants as the API sees them: each with an active key; they e-mail their guests the link. */
export async function makeTenants(
  db: Database,
  repos: Repositories,
  count: number,
  label = 'Hôtel',
): Promise<BenchTenant[]> {
  const out: BenchTenant[] = [];
  for (let i = 1; i <= count; i++) {
    const id = tenantId(i);
    await db.query(
      "INSERT INTO tenants (id, name, confirmation_email, timezone) VALUES ($1, $2, true, 'Europe/Paris')",
      [id, `${label} ${i}`],
    );
    const k = generateApiKey();
    await repos.apiKeys.insert({
      tenantId: id,
      prefix: k.prefix,
      secretHash: k.secretHash,
      label: 'bench',
      expiresAt: null,
    });
    out.push({ id, key: k.key });
  }
  return out;
}

/**
 * The service as production runs it (NODE_ENV=production, the real app, its rate limits with
 * the create limit raised for the run), in this process: the load comes from another process
 * and this one only waits while it is measured. Request logs are off (LOG_LEVEL=warn).
 */
export async function startService(db: Database, url: string): Promise<Listening> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: url,
    SECRET_KEY,
    SANDBOX_IN_PRODUCTION: 'true',
    CREATE_RATE_LIMIT: '1000000',
    LOG_LEVEL: 'warn',
    WORKERS: 'off',
    // The guest page's 30-per-minute-per-address limit stays on: the load generator gives
    // every request its own address, as many guests would have; the load generator runs on this
    // machine, so trusting loopback lets it (`true` is refused in production).
    TRUST_PROXY: 'loopback',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8000',
  });
  const app = await buildApp({ config, db });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${a.port}`, close: () => app.close() };
}

export interface Stage {
  engine: Engine;
  fresh: FreshDatabase;
  db: Database;
  repos: Repositories;
  tenants: BenchTenant[];
  service: Listening;
  baseline: Listening;
  close(): Promise<void>;
}

export async function openStage(engine: Engine, adminUrl: string, label: string, tenantCount: number): Promise<Stage> {
  const fresh = await freshDatabase(engine, adminUrl, label);
  const db = await openMigrated(fresh.url);
  const repos = repositories(db);
  const tenants = await makeTenants(db, repos, tenantCount);
  // The baseline gets a driver of its own, like a separate service would: same pool size.
  const baselineDb = engine === 'postgres' ? await openDatabase(parseDatabaseUrl(fresh.url)) : db;
  const service = await startService(db, fresh.url);
  const baseline = await startBaseline(baselineDb, new Map(tenants.map((t) => [t.key, t.id])));
  return {
    engine,
    fresh,
    db,
    repos,
    tenants,
    service,
    baseline,
    async close() {
      await service.close();
      await baseline.close();
      if (baselineDb !== db) await baselineDb.close();
      await db.close();
      await fresh.drop();
    },
  };
}
