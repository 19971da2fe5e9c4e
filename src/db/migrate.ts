import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';
import { expandGenerated, namedGenerators } from './generated-sql.ts';
import { splitSqlStatements } from './sql-statements.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant shared by every instance; it names the advisory lock that serialises migrations.
const MIGRATION_LOCK = 727_001;

/**
 * Applies the numbered SQL files not yet recorded, in order, in one transaction under an
 * advisory lock: two instances starting together apply each file once, and a failing file
 * leaves the schema as it was. Returns the names applied.
 */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
}

/**
 * The migrations this version has that the database has not applied (all of them on an empty
 * database). A non-empty answer means this instance must not take traffic: its SQL expects a
 * schema the database does not have yet.
 */
export async function pendingMigrations(db: Queryable): Promise<string[]> {
  const files = await migrationFiles();
  const table = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return files;
  const done = new Set(
    (await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
  );
  return files.filter((f) => !done.has(f));
}

/** For each SQL generator a migration names, the last migration file that names it. */
async function newestNaming(files: readonly string[]): Promise<Map<string, string>> {
  const newest = new Map<string, string>();
  for (const file of files) {
    for (const { name } of namedGenerators(await readFile(MIGRATIONS_DIR + file, 'utf8'))) newest.set(name, file);
  }
  return newest;
}

export async function migrate(db: Database): Promise<string[]> {
  const files = await migrationFiles();
  const newest = await newestNaming(files);
  return db.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
      );
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const sql = expandGenerated(file, await readFile(MIGRATIONS_DIR + file, 'utf8'), newest);
        for (const statement of splitSqlStatements(sql)) await tx.query(statement);
        await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        applied.push(file);
      }
      return applied;
      // A migration may build an index on a large table: longer than any request may wait. It
      // holds its connection throughout, waiting for the lock included: never a pooler's.
    },
    { unbounded: true, direct: true },
  );
}
