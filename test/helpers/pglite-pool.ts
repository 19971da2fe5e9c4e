import type { PGlite } from '@electric-sql/pglite';
import { type Database, pgliteDatabase, type Queryable, type QueryOptions, startPglite } from '../../src/db/index.ts';
import { pgliteTemplate } from './database-template.ts';

/**
 * PGlite databases for the tests of one process, reused. Starting a PGlite cluster (WASM,
 * even from the migrated archive) costs about 1.5 s of CPU; emptying one costs tens of
 * milliseconds. A test process runs many test files one after another
 * (scripts/run-tests.mjs), so a database a test is done with is emptied back to the state
 * migrations leave and given to the next one:
 * - `DISCARD ALL`: prepared statements, LISTEN, settings, advisory locks of the session;
 * - every table emptied, identities restarted, the rows migrations insert put back;
 * - every sequence the migrations did not make dropped (the references' own, one per tenant,
 *   type and year: kept, they made nearly every used database fail the comparison below);
 * - then the catalog is compared with the one the fresh database had (tables, columns,
 *   constraints, indexes, functions and their bodies, triggers, roles, planner statistics,
 *   applied migrations). A test that changed any of it (dropped a table, ran ANALYZE) leaves a
 *   database that is closed instead of reused.
 */

/** The catalog and the migrations' own rows, as one comparable text. */
const CATALOG = `
SELECT string_agg(x, E'\\n' ORDER BY x) AS catalog FROM (
  SELECT format('rel %s.%s %s', n.nspname, c.relname, c.relkind)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
     AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL
  SELECT format('col %s.%s %s %s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT format('con %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT format('fn %s %s', p.oid::regprocedure, md5(p.prosrc))
    FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
  UNION ALL
  SELECT format('trg %s %s %s', tgrelid::regclass, tgname, tgenabled) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT format('role %s', rolname) FROM pg_roles
  UNION ALL
  SELECT format('stats %s', count(*)) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
   WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT format('dbsettings %s', count(*)) FROM pg_db_role_setting
  UNION ALL
  SELECT format('migrations %s', md5(coalesce(string_agg(m::text, ',' ORDER BY m::text), ''))) FROM schema_migrations m
) catalog(x)`;

/** The tables a test may write: all of the public schema's but the migrations' record. */
const TABLES = `
SELECT c.relname AS name FROM pg_class c
 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations'
 ORDER BY 1`;

/**
 * The sequences of the public schema. The service makes one per tenant, request type and year
 * for the references (CREATE SEQUENCE IF NOT EXISTS, src/db/payment-requests-repository.ts): a
 * database a test created requests on has some that a fresh one has not.
 */
const SEQUENCES = `
SELECT c.relname AS name FROM pg_class c
 WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S'
 ORDER BY 1`;

interface Fresh {
  catalog: string;
  tables: string[];
  /** The sequences the migrations made (identities and serials): any other one a test made is dropped. */
  sequences: string[];
  /** Rows the migrations inserted, by table, as JSON (job_schedules' defaults). */
  seeds: { table: string; rows: string }[];
}

/** Beyond this many uses an instance is closed, so nothing a test leaves can pile up for long. */
const MAX_USES = 40;
/**
 * Instances kept while no test needs them (a file may hold several at once). An open instance
 * started from an archive holds a timer of its own, so one kept idle would keep the process
 * alive: instances are kept only in a process that ends anyway after its last test, a test
 * process of scripts/run-tests.mjs (`--test-force-exit`), which says so through this flag
 * (scripts/test-process-setup.mjs). A test file run on its own closes each one as before.
 */
const MAX_IDLE = 2;
export const SHARED_PROCESS = Symbol.for('payreq.test.shared-process');

function mayKeepIdle(): boolean {
  return (globalThis as { [SHARED_PROCESS]?: boolean })[SHARED_PROCESS] === true && idle.length < MAX_IDLE;
}

/** Closes the instances no test holds. */
export async function closeIdlePglite(): Promise<void> {
  for (const pooled of idle.splice(0)) await pooled.raw.close();
}

interface Pooled {
  raw: PGlite;
  uses: number;
}

const idle: Pooled[] = [];
let fresh: Promise<Fresh> | undefined;
/** What the pool did in this process: its own test reads it. */
export const pglitePoolCounts = { started: 0, reused: 0, closed: 0 };

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function catalogOf(raw: PGlite): Promise<string> {
  const r = await raw.query<{ catalog: string }>(CATALOG);
  return r.rows[0]?.catalog ?? '';
}

async function describeFresh(raw: PGlite): Promise<Fresh> {
  const tables = (await raw.query<{ name: string }>(TABLES)).rows.map((r) => r.name);
  const seeds: Fresh['seeds'] = [];
  for (const table of tables) {
    const r = await raw.query<{ rows: string | null }>(`SELECT json_agg(t)::text AS rows FROM ${quote(table)} t`);
    const rows = r.rows[0]?.rows;
    if (rows) seeds.push({ table, rows });
  }
  const sequences = (await raw.query<{ name: string }>(SEQUENCES)).rows.map((r) => r.name);
  return { catalog: await catalogOf(raw), tables, sequences, seeds };
}

/** Empties a used instance back to its migrated state; false when it cannot be (then it is closed). */
async function reset(raw: PGlite, state: Fresh): Promise<boolean> {
  try {
    await raw.exec('DISCARD ALL');
    await raw.exec(`TRUNCATE ${state.tables.map(quote).join(', ')} RESTART IDENTITY CASCADE`);
    // The references' sequences the test's requests made go with the tenants they numbered;
    // without this nearly every database would fail the comparison below and be closed.
    const made = (await raw.query<{ name: string }>(SEQUENCES)).rows
      .map((r) => r.name)
      .filter((name) => !state.sequences.includes(name));
    if (made.length > 0) await raw.exec(`DROP SEQUENCE ${made.map(quote).join(', ')}`);
    for (const seed of state.seeds) {
      await raw.query(
        `INSERT INTO ${quote(seed.table)} OVERRIDING SYSTEM VALUE
         SELECT * FROM json_populate_recordset(NULL::${quote(seed.table)}, $1::json)`,
        [seed.rows],
      );
    }
    return (await catalogOf(raw)) === state.catalog;
  } catch {
    return false;
  }
}

/** A migrated PGlite database; `release()` gives it back (the Database then answers as closed). */
export async function takePgliteDatabase(migrate: (db: Database) => Promise<unknown>): Promise<Database> {
  let pooled = idle.pop();
  if (!pooled) {
    const raw = await startPglite(undefined, 'service', await pgliteTemplate());
    // A template that missed a migration still ends current.
    await migrate(pgliteDatabase(raw));
    // The Database a test gets names its prepared statements from the start again.
    await raw.exec('DISCARD ALL');
    fresh ??= describeFresh(raw);
    await fresh;
    pooled = { raw, uses: 0 };
    pglitePoolCounts.started++;
  } else {
    pglitePoolCounts.reused++;
  }
  pooled.uses++;
  return lease(pooled);
}

function lease(pooled: Pooled): Database {
  const inner = pgliteDatabase(pooled.raw);
  const unlistens: (() => Promise<void>)[] = [];
  let released: Promise<void> | undefined;
  // What a closed PGlite instance answers: a late statement of a test that is over must never
  // reach the next test's database.
  const closed = () => Promise.reject(new Error('PGlite is closed'));
  return {
    engine: 'pglite',
    query<T>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      return released ? closed() : inner.query<T>(sql, params, options);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { unbounded?: boolean }) {
      return released ? closed() : inner.transaction(fn, options);
    },
    async listen(channel: string, onNotice: (payload: string | undefined) => void) {
      if (released || !inner.listen) return closed();
      const unlisten = await inner.listen(channel, onNotice);
      unlistens.push(unlisten);
      return unlisten;
    },
    close() {
      released ??= (async () => {
        for (const unlisten of unlistens) await unlisten().catch(() => {});
        const state = await fresh;
        if (state && pooled.uses < MAX_USES && mayKeepIdle() && (await reset(pooled.raw, state))) {
          idle.push(pooled);
        } else {
          pglitePoolCounts.closed++;
          await pooled.raw.close();
        }
      })();
      return released;
    },
  };
}
