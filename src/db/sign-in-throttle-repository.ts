import type { Database } from './database.ts';

/** One throttled key's state: failures in a row, the last one, and the moment before which it waits. */
export interface ThrottleRow {
  failures: number;
  lastFailureAt: Date;
  retryAt: Date | null;
}

/**
 * Sign-in throttling state, one row per key ('user:NAME', 'ip:ADDRESS'). Kept in the database
 * so that every instance counts the same failures, with or without Redis.
 */
export function signInThrottleRepository(db: Database) {
  return {
    /**
     * Reads the rows of `keys` locked, lets `decide` (pure) say what each becomes (a row, or
     * null to forget the key), and writes that, in one transaction: two attempts on the same
     * key, from any instance, take turns, so parallel guesses cannot outrun the count.
     */
    async change<T>(
      keys: readonly string[],
      now: Date,
      decide: (rows: ReadonlyMap<string, ThrottleRow>) => {
        writes: ReadonlyMap<string, ThrottleRow | null>;
        result: T;
      },
    ): Promise<T> {
      const sorted = [...new Set(keys)].sort();
      return db.transaction(async (tx) => {
        // A key never seen gets a row to lock, so that two first attempts wait for each other too.
        await tx.query(
          `INSERT INTO sign_in_throttle (key, failures, last_failure_at)
           SELECT k, 0, $2 FROM unnest($1::text[]) AS k ON CONFLICT (key) DO NOTHING`,
          [sorted, now],
        );
        const r = await tx.query<{ key: string; failures: number; last_failure_at: Date; retry_at: Date | null }>(
          `SELECT key, failures, last_failure_at, retry_at FROM sign_in_throttle
            WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
          [sorted],
        );
        const rows = new Map<string, ThrottleRow>();
        for (const row of r.rows) {
          if (row.failures === 0 && row.retry_at === null) continue;
          rows.set(row.key, { failures: row.failures, lastFailureAt: row.last_failure_at, retryAt: row.retry_at });
        }
        const { writes, result } = decide(rows);
        for (const key of sorted) {
          const next = writes.has(key) ? writes.get(key) : (rows.get(key) ?? null);
          if (next === null || next === undefined || (next.failures === 0 && next.retryAt === null)) {
            await tx.query('DELETE FROM sign_in_throttle WHERE key = $1', [key]);
          } else {
            await tx.query(
              'UPDATE sign_in_throttle SET failures = $2, last_failure_at = $3, retry_at = $4 WHERE key = $1',
              [key, next.failures, next.lastFailureAt, next.retryAt],
            );
          }
        }
        return result;
      });
    },

    /** Forgets keys whose last failure is before `before` and that no longer wait. */
    async purge(before: Date): Promise<number> {
      const r = await db.query(
        'DELETE FROM sign_in_throttle WHERE last_failure_at < $1 AND (retry_at IS NULL OR retry_at < $1)',
        [before],
      );
      return r.rowCount ?? 0;
    },
  };
}
export type SignInThrottleRepository = ReturnType<typeof signInThrottleRepository>;
