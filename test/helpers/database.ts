import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, migrate, openDatabase } from '../../src/db/index.js';

/** The engine this run tests: `npm test` runs the suite once per engine (scripts/run-tests.mjs). */
export const ENGINE: 'pglite' | 'postgres' = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'pglite';

export interface TestDatabase {
  db: Database;
  /** The DATABASE_URL a child process (the CLI, a second instance) would use to reach it. */
  url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error('TEST_DATABASE=postgres needs TEST_POSTGRES_URL');
  return url;
}

/**
 * A fresh, migrated database: in-memory PGlite, or a new database on the PostgreSQL server of
 * TEST_POSTGRES_URL, dropped at the end. Every test file starts from nothing.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (ENGINE === 'pglite') {
    const db = await openDatabase({ engine: 'pglite', dir: undefined });
    await migrate(db);
    return { db, url: 'pglite://memory', drop: () => db.close() };
  }
  const name = `payreq_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = await openDatabase({ engine: 'postgres', url });
  await migrate(db);
  return {
    db,
    url,
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
