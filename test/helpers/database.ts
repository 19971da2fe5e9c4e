import { randomBytes } from 'node:crypto';
import { type Database, migrate, openDatabase } from '../../src/db/index.ts';
import {
  createPostgresDatabase,
  databaseUrl,
  dropPostgresDatabase,
  POSTGRES_TEMPLATE_ENV,
} from './database-template.ts';
import { takePgliteDatabase } from './pglite-pool.ts';

/** The engine this run tests: `npm test` runs the suite once per engine (scripts/run-tests.mjs). */
export const ENGINE: 'pglite' | 'postgres' = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Database;
  /** The DATABASE_URL a child process (the CLI, a second instance) would use to reach it. */
  url: string;
  drop(): Promise<void>;
}

/**
 * TEST_POSTGRES_POOLER_URL: a connection pooler in transaction mode in front of TEST_POSTGRES_URL's
 * server (PgBouncer, every database passed through). The test's database connection then goes
 * through it, as an instance's DATABASE_URL would, with the server itself as its
 * DATABASE_DIRECT_URL (LISTEN, migrations); `url`, for child processes, stays the server's.
 */
export const POOLER_ENV = 'TEST_POSTGRES_POOLER_URL';

function adminUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error('TEST_DATABASE=postgres needs TEST_POSTGRES_URL');
  return url;
}

/**
 * A fresh, migrated database: in-memory PGlite, or a new database on the PostgreSQL server of
 * TEST_POSTGRES_URL, dropped at the end. Every test starts from nothing but the schema: under
 * `npm test` a copy of the run's migrated template (./database-template.ts), otherwise
 * migrated here. `migrate` runs either way, so a template that missed a migration still ends
 * current. A PGlite database is reused once emptied (./pglite-pool.ts).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (ENGINE === 'pglite') {
    const db = await takePgliteDatabase(migrate);
    return { db, url: 'pglite://memory', drop: () => db.close() };
  }
  const name = `payreq_test_${randomBytes(6).toString('hex')}`;
  await createPostgresDatabase(adminUrl(), name, process.env[POSTGRES_TEMPLATE_ENV] || undefined);
  const url = databaseUrl(adminUrl(), name);
  const pooler = process.env[POOLER_ENV];
  const db = await openDatabase(
    pooler ? { engine: 'postgres', url: databaseUrl(pooler, name), directUrl: url } : { engine: 'postgres', url },
  );
  await migrate(db);
  return {
    db,
    url,
    async drop() {
      await db.close();
      await dropPostgresDatabase(adminUrl(), name);
    },
  };
}
