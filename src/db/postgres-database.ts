import { createHash } from 'node:crypto';
import pg from 'pg';
import { errors } from '../domain/index.ts';
import {
  assertChannel,
  type Database,
  isDatabaseUnreachable,
  type QueryOptions,
  type QueryResult,
} from './database.ts';

// DATE columns stay 'YYYY-MM-DD' strings: a calendar date has no time zone to shift it.
pg.types.setTypeParser(1082, (v) => v);
// Integer counts (count(*), sums) come back as numbers; the values we store fit in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  max?: number;
  /** The longest wait for a connection and for each statement's answer; unset: no limit. */
  timeoutMs?: number;
  /**
   * The server itself (DATABASE_DIRECT_URL) when `url` is a connection pooler's; unset or the
   * same as `url`: no pooler. See `openPostgres`.
   */
  directUrl?: string;
}

/** Long enough for any migration; a timer cannot be longer than 2^31 - 1 ms. */
const UNBOUNDED_MS = 2 ** 31 - 1;
/** Direct connections besides the listening ones: a migration takes one. */
const DIRECT_POOL_MAX = 2;

/** A server that is away becomes the catalogue's 503; any other error goes up unchanged. */
function unavailableIfUnreachable(err: unknown): unknown {
  if (!isDatabaseUnreachable(err)) return err;
  const e = errors.databaseUnavailable();
  e.cause = err;
  return e;
}

/**
 * PostgreSQL through `url`. When `directUrl` names another address, `url` is taken for a
 * connection pooler in transaction mode (PgBouncer's `pool_mode = transaction`): a client owns
 * a server connection only from a statement's or a transaction's start to its end, so nothing
 * may outlive one: statements go unnamed (a named one is prepared on a server connection the
 * next call may not get), and whatever needs a session of its own goes to `directUrl`: LISTEN,
 * and the transactions that ask for it (`direct`: the migrations). Everything else payreq asks
 * of a connection already lives within one transaction (advisory locks are `_xact_`, NOTIFY is
 * sent at commit, no SET, no temporary table, no cursor across statements).
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  // A server that stops answering (a network cut, a paused host) must not hold requests open:
  // connecting and each statement are bounded, and past the bound the request answers 503.
  const timeoutMs = options.timeoutMs;
  const directUrl = options.directUrl ?? url;
  const pooled = directUrl !== url;
  const newPool = (connectionString: string, max: number) => {
    const p = new pg.Pool({
      connectionString,
      max,
      ...(timeoutMs ? { connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs } : {}),
    });
    // An idle client that loses its server emits 'error'; without a listener Node would exit.
    p.on('error', () => {});
    return p;
  };
  const pool = newPool(url, options.max ?? 10);
  // Opens no connection until a direct transaction asks for one.
  const direct = pooled ? newPool(directUrl, DIRECT_POOL_MAX) : pool;
  // Named statements are parsed and planned once per connection, not on every call. Our SQL
  // texts are constants, so the set of names stays small; statements without parameters
  // (DDL, migrations) run unnamed. Through a pooler every statement runs unnamed.
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
    named: boolean,
    sql: string,
    params: readonly unknown[] = [],
    queryTimeout?: number,
    options?: QueryOptions,
  ): Promise<QueryResult<T>> => {
    // pg reads a per-query `query_timeout` (overriding the pool's); its typings omit it.
    const config: pg.QueryConfig & { query_timeout?: number } =
      named && params.length > 0 && !options?.planWithValues
        ? { name: nameOf(sql), text: sql, values: params as unknown[] }
        : { text: sql, values: params as unknown[] };
    if (queryTimeout) config.query_timeout = queryTimeout;
    try {
      const r = await client.query(config);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    } catch (err) {
      throw unavailableIfUnreachable(err);
    }
  };
  // Fail at start, with the server's own words, rather than on the first request.
  await run(pool, false, 'SELECT 1');
  return {
    engine: 'postgres',
    query: (sql, params, options) => run(pool, !pooled, sql, params, undefined, options),
    async transaction(fn, txOptions = {}) {
      const queryTimeout = txOptions.unbounded && timeoutMs ? UNBOUNDED_MS : undefined;
      const onDirect = txOptions.direct === true;
      const named = onDirect || !pooled;
      let client: pg.PoolClient;
      try {
        client = await (onDirect ? direct : pool).connect();
      } catch (err) {
        throw unavailableIfUnreachable(err);
      }
      let broken = false;
      try {
        await run(client, named, 'BEGIN', [], queryTimeout);
        const result = await fn({
          query: (sql, params, options) => run(client, named, sql, params, queryTimeout, options),
        });
        await run(client, named, 'COMMIT', [], queryTimeout);
        return result;
      } catch (err) {
        // A connection that timed out or was cut is not given back to the pool: its state is unknown.
        broken = (err as { code?: string }).code === 'database_unavailable';
        if (!broken) await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release(broken ? true : undefined);
      }
    },
    listen: (channel, onNotice) => listenPostgres(directUrl, channel, onNotice, timeoutMs),
    async close() {
      await pool.end();
      if (direct !== pool) await direct.end();
    },
  };
}

/** How long a lost listening connection waits before it connects again. */
const LISTEN_RETRY_MS = 1000;

/**
 * LISTEN holds a connection of its own, outside the pool (a pooled one goes back to others
 * and would stop listening), to the server itself: `url` is DATABASE_DIRECT_URL. Lost, it connects again after a second, and then reports
 * `undefined`: whatever was notified meanwhile is unknown.
 */
async function listenPostgres(
  url: string,
  channel: string,
  onNotice: (payload: string | undefined) => void,
  timeoutMs: number | undefined,
): Promise<() => Promise<void>> {
  assertChannel(channel);
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const connect = async () => {
    const c = new pg.Client({ connectionString: url, ...(timeoutMs ? { connectionTimeoutMillis: timeoutMs } : {}) });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotice(n.payload ?? '');
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    client = c;
    await c.connect();
    await c.query(`LISTEN ${channel}`);
  };
  const lost = (c: pg.Client) => {
    if (stopped || c !== client || retry) return;
    client = undefined;
    c.end().catch(() => {});
    retry = setTimeout(async () => {
      retry = undefined;
      try {
        await connect();
        onNotice(undefined);
      } catch {
        if (client) lost(client);
      }
    }, LISTEN_RETRY_MS);
    retry.unref();
  };
  try {
    await connect();
  } catch {
    // The pool reached the server a moment ago; a listener that cannot start now retries.
    if (client) lost(client);
  }
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
