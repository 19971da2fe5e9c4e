import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './database.js';

/**
 * Embedded PostgreSQL (WASM). One connection: PGlite runs one statement stream at a time and
 * a transaction holds it exclusively, so other queries wait for it rather than interleave.
 */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  const db = await PGlite.create(dataDir);
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const top = wrap(db);
  return {
    engine: 'pglite',
    query: top.query,
    // PGlite's transaction() rolls back before rethrowing, so an aborted transaction never
    // leaks into the next statement on the shared connection.
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}
