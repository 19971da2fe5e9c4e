import pg from 'pg';
import type { DatabaseCost } from './request-costs.ts';

/** The sandbox stands for a remote provider: its statements are counted apart. */
const SANDBOX = /sandbox/i;

interface Row {
  query: string;
  toplevel: boolean;
  calls: string;
  exec_ms: number;
  plan_ms: number;
  wal_bytes: string;
  wal_records: string;
  wal_fpi: string;
  buffers: string;
  dirtied: string;
}

/**
 * `pg_stat_statements` for one database, read around an operation: reset before, read after,
 * divided by the operations done. Every session's statements on that database count, so the
 * reader's own are left out by their text. Execution time only: an autocommitted statement's
 * commit (its WAL flush) comes after it and is not in its time.
 */
export async function statementStatistics(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    async reset(): Promise<void> {
      await client.query('SELECT pg_stat_statements_reset()');
    },
    async read(operations: number): Promise<DatabaseCost> {
      const r = await client.query<Row>(
        `SELECT query, toplevel, calls, total_exec_time AS exec_ms, total_plan_time AS plan_ms, wal_bytes, wal_records, wal_fpi,
                shared_blks_hit + shared_blks_read AS buffers, shared_blks_dirtied AS dirtied
           FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT LIKE '%pg_stat_statements%'
          ORDER BY total_exec_time DESC`,
      );
      const per = (v: number) => v / operations;
      const ours = r.rows.filter((x) => !SANDBOX.test(x.query));
      const top = ours.filter((x) => x.toplevel);
      const nested = ours.filter((x) => !x.toplevel);
      const sum = (rows: Row[], f: (x: Row) => number) => rows.reduce((a, x) => a + f(x), 0);
      return {
        execUs: Math.round(per(sum(top, (x) => x.exec_ms * 1000))),
        planUs: Math.round(per(sum(top, (x) => x.plan_ms * 1000))),
        triggerStatementsUs: Math.round(per(sum(nested, (x) => x.exec_ms * 1000))),
        walBytes: Math.round(per(sum(top, (x) => Number(x.wal_bytes)))),
        walRecords: Math.round(per(sum(top, (x) => Number(x.wal_records))) * 10) / 10,
        walFpi: Math.round(per(sum(top, (x) => Number(x.wal_fpi))) * 10) / 10,
        buffers: Math.round(per(sum(top, (x) => Number(x.buffers)))),
        dirtied: Math.round(per(sum(top, (x) => Number(x.dirtied))) * 10) / 10,
        top: ours.slice(0, 6).map((x) => ({
          statement: label(x.query),
          toplevel: x.toplevel,
          us: Math.round(per(x.exec_ms * 1000)),
          planUs: Math.round(per(x.plan_ms * 1000)),
          calls: Math.round(per(Number(x.calls)) * 100) / 100,
          walBytes: Math.round(per(Number(x.wal_bytes))),
          walRecords: Math.round(per(Number(x.wal_records)) * 10) / 10,
        })),
        sandboxUs: Math.round(
          per(
            sum(
              r.rows.filter((x) => x.toplevel && SANDBOX.test(x.query)),
              (x) => x.exec_ms * 1000,
            ),
          ),
        ),
      };
    },
    close: () => client.end(),
  };
}

/** A statement named by what it writes or reads first, for a table cell. */
function label(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  const write = /\b(INSERT INTO|UPDATE|DELETE FROM) (?!OF\b)([a-z_]+)/i.exec(q);
  const read = /\bFROM ([a-z_]+)/i.exec(q);
  const verb = /^(WITH|SELECT|INSERT|UPDATE|DELETE|BEGIN|COMMIT)\b/i.exec(q)?.[1]?.toUpperCase() ?? q.slice(0, 12);
  if (verb === 'BEGIN' || verb === 'COMMIT') return verb;
  if (write) return `${verb} … ${write[1]?.toUpperCase()} ${write[2]}`;
  return read ? `${verb} … FROM ${read[1]}` : q.slice(0, 40);
}
