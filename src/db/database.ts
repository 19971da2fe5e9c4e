/** What repositories need from a database: plain SQL with positional parameters. */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Plan the statement for these values on every call instead of preparing it once. Our
   * statements are prepared once per connection, and after a few calls PostgreSQL may keep a
   * generic plan made without the values; a search whose best plan depends on them (a prefix
   * the btree can range over, a word every row holds) needs its own plan each time.
   */
  planWithValues?: boolean;
}

export interface Queryable {
  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<T>>;
}

export interface TransactionOptions {
  /** Its statements may take longer than the database timeout (migrations building an index). */
  unbounded?: boolean;
  /**
   * On PostgreSQL, run on a connection to the server itself (DATABASE_DIRECT_URL), not through
   * the connection pooler DATABASE_URL may name: a migration waits for the migrations' lock and
   * builds indexes for as long as it takes, holding its connection throughout, which a pooler's
   * few server connections and its timeouts are not for. The same pool when there is no pooler.
   */
  direct?: boolean;
}

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Follows `channel` (PostgreSQL's LISTEN): `onNotice` gets each NOTIFY's payload once the
   * writing transaction commits, whichever process or instance wrote. `undefined` means notices
   * may have been missed (the listening connection was lost and is back): drop everything the
   * notices would have invalidated. Resolves to a function that stops following. Both engines
   * have it; a wrapper without it (a test double) follows no notices. On PostgreSQL it holds a
   * session of its own on DATABASE_DIRECT_URL: a transaction pooler would hand the LISTEN's
   * server connection to other clients and the notices would never arrive.
   */
  listen?(channel: string, onNotice: (payload: string | undefined) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A channel name is written into LISTEN: only a plain identifier. */
export function assertChannel(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
}

/** SQLSTATE codes the code reacts to. */
export const PG = {
  uniqueViolation: '23505',
  undefinedTable: '42P01',
  duplicateTable: '42P07',
  serializationFailure: '40001',
} as const;

/**
 * The server is away rather than the statement wrong: the connection was refused, cut, timed
 * out, the server is shutting down or starting, or the database is gone. The request answers
 * 503 with Retry-After (the client retries) instead of a 500.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown (connections terminated)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '3D000', // invalid_catalog_name (the database was dropped)
  '53300', // too_many_connections
]);
const UNREACHABLE_MESSAGES =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connection error and is not queryable|Client was closed/i;

export function isDatabaseUnreachable(err: unknown): boolean {
  const code = pgCode(err);
  if (code !== undefined && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return err instanceof Error && UNREACHABLE_MESSAGES.test(err.message);
}

export function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
