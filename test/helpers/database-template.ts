import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { type Database, migrate, openDatabase, type Queryable } from '../../src/db/index.ts';

/**
 * One migrated database per test run, copied for each test file: a new PGlite cluster costs an
 * initdb inside WASM (about 8 s on a loaded 2-core machine) where unpacking a dump of a migrated
 * one costs about 1.5 s. scripts/run-tests.mjs makes the templates once, hands them to the test
 * processes through these variables, and removes them at the end. A test file run on its own
 * (no variable) builds its database from nothing, as before.
 */
export const PGLITE_TEMPLATE_ENV = 'PAYREQ_TEST_PGLITE_TEMPLATE';
export const POSTGRES_TEMPLATE_ENV = 'PAYREQ_TEST_POSTGRES_TEMPLATE';

/** The bare PGlite connection as the Database that migrate() needs (the archive is PGlite's own). */
function migratable(raw: PGlite): Database {
  const on = (q: PGlite | Transaction): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  return {
    engine: 'pglite',
    query: on(raw).query,
    transaction: (fn) => raw.transaction((tx) => fn(on(tx))),
    close: () => raw.close(),
  };
}

/** Migrates a new in-memory PGlite cluster and writes its `dumpDataDir()` archive into `dir`; returns the file. */
export async function makePgliteTemplate(dir: string): Promise<string> {
  // The same contrib extensions the service loads (src/db/pglite-database.ts): the migrations create them.
  const raw = await PGlite.create({ extensions: { pg_trgm } });
  await migrate(migratable(raw));
  const archive = await raw.dumpDataDir('none');
  await raw.close();
  const file = path.join(dir, 'migrated.tar');
  await writeFile(file, Buffer.from(await archive.arrayBuffer()));
  return file;
}

let pgliteArchive: Promise<Blob | undefined> | undefined;

/** The run's migrated PGlite archive, read once per test process; undefined outside the runner. */
export function pgliteTemplate(): Promise<Blob | undefined> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  pgliteArchive ??= file
    ? readFile(file).then(
        (bytes) => new Blob([bytes]),
        () => undefined,
      )
    : Promise.resolve(undefined);
  return pgliteArchive;
}

/** The database named `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onServer<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A migrated database for `CREATE DATABASE ... TEMPLATE`. Nobody may stay connected to a
 * template while it is copied, autovacuum included: connections to it are turned off once it is
 * migrated.
 */
export async function makePostgresTemplate(adminUrl: string): Promise<string> {
  const name = `payreq_tpl_${randomBytes(6).toString('hex')}`;
  await onServer(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const db = await openDatabase({ engine: 'postgres', url: databaseUrl(adminUrl, name) });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  await onServer(adminUrl, (c) => c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`));
  return name;
}

export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  await onServer(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** PostgreSQL's object_in_use: a session (autovacuum's, a moment) is on the template. */
const OBJECT_IN_USE = '55006';

/** Creates database `name`, copied from `template` when given; the copy is retried while the template is busy. */
export async function createPostgresDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  await onServer(adminUrl, async (c) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await c.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  });
}
