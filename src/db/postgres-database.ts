import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Database, QueryResult } from './database.js';

// DATE columns stay 'YYYY-MM-DD' strings: a calendar date has no time zone to shift it.
pg.types.setTypeParser(1082, (v) => v);
// Integer counts (count(*), sums) come back as numbers; the values we store fit in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  max?: number;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  // An idle client that loses its server emits 'error'; without a listener Node would exit.
  pool.on('error', () => {});
  // Named statements are parsed and planned once per connection, not on every call. Our SQL
  // texts are constants, so the set of names stays small; statements without parameters
  // (DDL, migrations) run unnamed.
  const names = new Map<string, string>();
  const nameOf = (sql: string) => {
    let n = names.get(sql);
    if (!n) {
      n = `s${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
      names.set(sql, n);
    }
    return n;
  };
  const run = async <T>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<T>> => {
    const r =
      params.length > 0
        ? await client.query({ name: nameOf(sql), text: sql, values: params as unknown[] })
        : await client.query(sql);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  // Fail at start, with the server's own words, rather than on the first request.
  await run(pool, 'SELECT 1');
  return {
    engine: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({ query: (sql, params) => run(client, sql, params) });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
