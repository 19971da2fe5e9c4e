import type { Repositories } from '../db/index.ts';

/**
 * `analyze_tables`: the query planner's statistics of every table, refreshed. PostgreSQL's
 * autovacuum does it by itself; embedded PGlite has no autovacuum, so without this job its
 * planner never learns how large the tables have grown. Each table is one statement: on PGlite
 * the requests waiting behind the job pass between two tables.
 */
export async function analyzeTables(repos: Pick<Repositories, 'statistics'>): Promise<{ tables: number; ms: number }> {
  const started = performance.now();
  const tables = await repos.statistics.analyzeAll();
  return { tables: tables.length, ms: Math.round(performance.now() - started) };
}
