import type { Queryable } from './database.ts';

/**
 * The planner's statistics. PostgreSQL's autovacuum keeps them up to date; embedded PGlite runs
 * no autovacuum and keeps no activity counters a threshold could read, so without this its
 * planner never learns a table's size or spread, and a back-office search over a grown
 * database takes near a second instead of milliseconds.
 */
export function statisticsRepository(db: Queryable) {
  return {
    /**
     * Analyzes every table of the service's schema, one statement a table: on PGlite's single
     * connection the requests waiting behind it pass between two tables, not after all of them.
     * Returns the tables analyzed.
     */
    async analyzeAll(): Promise<string[]> {
      const tables = await db.query<{ name: string }>(
        `SELECT quote_ident(tablename) AS name
           FROM pg_tables
          WHERE schemaname = current_schema()
          ORDER BY tablename`,
      );
      for (const { name } of tables.rows) await db.query(`ANALYZE ${name}`);
      return tables.rows.map((t) => t.name);
    },
  };
}
