import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { assertChannel, type Database, type Queryable, type QueryOptions, type QueryResult } from './database.ts';

/** A value as PostgreSQL's text input reads it: what a driver sends in the text protocol. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (Array.isArray(value)) {
    const items = value.map((v) => {
      const t = textOf(v);
      return t === null ? 'NULL' : `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
    });
    return `{${items.join(',')}}`;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A parameter as an SQL literal of unknown type, quoted by `pg`'s own escapeLiteral:
 * PostgreSQL types it from the prepared statement, as it would a protocol parameter.
 */
function literal(value: unknown): string {
  const text = textOf(value);
  return text === null ? 'NULL' : pg.escapeLiteral(text);
}

/**
 * The buffer pool, by what opens the database. In WASM it is part of the process's resident
 * memory. A command is a short-lived process that reads its rows once: the daily job over
 * 20,000 holds peaks at 388 MB with 128MB and at 258 MB with 16MB, still above 2,000 a second.
 * The service keeps PostgreSQL's default: it reads the same pages again and again, and a page
 * not held is a read through PGlite's file system. At the bench's sizes (up to a million
 * rows) 16MB made no difference to it beyond run-to-run noise; the default stays until a
 * measurement says otherwise.
 */
export const PGLITE_SHARED_BUFFERS = { service: '128MB', command: '16MB' } as const;
export type PgliteRole = keyof typeof PGLITE_SHARED_BUFFERS;

/**
 * Embedded PostgreSQL (WASM). One connection: PGlite runs one statement stream at a time and
 * a transaction holds it exclusively, so other queries wait for it rather than interleave.
 */
export async function openPglite(
  dataDir: string | undefined,
  role: PgliteRole = 'service',
  initialData?: Blob,
): Promise<Database> {
  return pgliteDatabase(await startPglite(dataDir, role, initialData));
}

/**
 * The PGlite instance itself, started as the service starts it. Its module is loaded here, on
 * first use: a process on PostgreSQL (the daily job's, say) does not carry it (~7 MB resident).
 */
export async function startPglite(
  dataDir: string | undefined,
  role: PgliteRole = 'service',
  initialData?: Blob,
): Promise<PGlite> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  return PGlite.create(dataDir, {
    // Contrib extensions the migrations create (the request search index).
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS[role]}`],
    // A new cluster runs initdb inside WASM (seconds); a dump of one made earlier unpacks in a
    // fraction of that. Ignored by PGlite when the directory already holds a cluster.
    ...(initialData ? { loadDataDir: initialData } : {}),
  });
}

/**
 * The Database over an open PGlite instance. Its prepared statements are its own: a new one on
 * the same instance starts after `DISCARD ALL` (the test suite reuses instances that way).
 */
export function pgliteDatabase(db: PGlite): Database {
  // PGlite's query() parses and plans the statement on every call (an unnamed statement, and
  // five protocol messages each crossing into WASM). Our statements are constant texts, so each
  // is prepared once per instance and run with EXECUTE: the create runs 2.3 times faster.
  const names = new Map<string, Promise<string | undefined>>();
  const prepare = (sql: string): Promise<string | undefined> => {
    let name = names.get(sql);
    if (!name) {
      const n = `s${names.size}`;
      // A statement that cannot be prepared (a table not created yet) runs unprepared; the next
      // call tries again.
      name = db.exec(`PREPARE ${n} AS ${sql}`).then(
        () => n,
        () => {
          names.delete(sql);
          return undefined;
        },
      );
      names.set(sql, name);
    }
    return name;
  };
  const settled = new Map<string, string>();

  const wrap = (q: PGlite | Transaction, inTransaction: boolean): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<T>> {
      // query() is an unnamed statement: planned with its values each time.
      let name = options?.planWithValues ? undefined : settled.get(sql);
      // Inside a transaction, a failed PREPARE would abort it: only statements already prepared.
      if (!name && !inTransaction && params.length > 0 && !options?.planWithValues) {
        name = await prepare(sql);
        if (name) settled.set(sql, name);
      }
      // EXECUTE goes by the simple protocol (exec): one message into WASM instead of the five of
      // query(), a third less time per statement. Its text is one statement: every value in it
      // is a literal quoted by escapeLiteral, so nothing a client sends can end it.
      const r = name
        ? (await q.exec(`EXECUTE ${name}${params.length > 0 ? `(${params.map(literal).join(', ')})` : ''}`))[0]
        : await q.query<T>(sql, params as unknown[]);
      if (!r) throw new Error(`PGlite returned no result for: ${sql.slice(0, 60)}`);
      return { rows: r.rows as T[], rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const top = wrap(db, false);
  return {
    engine: 'pglite',
    query: top.query,
    // PGlite's transaction() rolls back before rethrowing, so an aborted transaction never
    // leaks into the next statement on the shared connection.
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx, true))),
    // One instance, never disconnected: every notice arrives, none is ever missed.
    async listen(channel, onNotice) {
      assertChannel(channel);
      const unlisten = await db.listen(channel, (payload) => onNotice(payload));
      // PGlite's own takes an optional transaction to run UNLISTEN in: called with none.
      return () => unlisten();
    },
    close: () => db.close(),
  };
}
