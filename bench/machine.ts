import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';

export interface MachineInfo {
  date: string;
  command: string;
  commit: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  pgbench: string;
  versions: Record<string, string>;
  loadAverageAtStart: number[];
  /**
   * How fast this host copies memory (GB/s, the best of a few copies of 256 MiB): a figure to
   * tell one machine from another when their CPU models read the same, as virtual ones do.
   */
  memoryCopyGBs: number;
  /** The PostgreSQL server's answer times, one client (`commitTimes`); absent in older reports, or where unreadable. */
  postgresCommit?: CommitTimes;
}

/**
 * How long this host's PostgreSQL takes to answer, one statement after another on one
 * connection (mean of 500 each, ms): a round trip (`SELECT 1`), and a commit that must reach
 * the disk (a transactional `pg_logical_emit_message` in autocommit: it writes a WAL record,
 * so its commit waits for the flush; a transaction that writes none commits without waiting).
 * A job that waits on its commits is bound by the second; hosts differ in it more than in
 * their CPU.
 */
export interface CommitTimes {
  roundTripMs: number;
  commitMs: number;
}

/** The server's answer times; undefined where they cannot be read (the function needs a superuser). */
export async function commitTimes(adminUrl: string): Promise<CommitTimes | undefined> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const mean = async (sql: string) => {
      for (let i = 0; i < 20; i++) await c.query(sql);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 500; i++) await c.query(sql);
      return Math.round(Number(process.hrtime.bigint() - t0) / 500 / 1e3) / 1e3;
    };
    const roundTripMs = await mean('SELECT 1');
    const commitMs = await mean("SELECT pg_logical_emit_message(true, 'payreq-bench', '')");
    return { roundTripMs, commitMs };
  } catch {
    return undefined;
  } finally {
    await c.end();
  }
}

function memoryCopyGBs(): number {
  const size = 256 * 2 ** 20;
  const from = Buffer.alloc(size, 1);
  const to = Buffer.alloc(size);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    from.copy(to);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return Math.round((size / 1e9 / best) * 10) / 10;
}

function quiet(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'not found';
  }
}

function versionOf(pkg: string): string {
  try {
    return JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

export function machineInfo(postgresVersion: string, postgresCommit: CommitTimes | undefined): MachineInfo {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    commit: quiet('git', ['rev-parse', '--short', 'HEAD']),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: postgresVersion,
    pgbench: quiet('pgbench', ['--version']),
    versions: Object.fromEntries(
      ['fastify', '@electric-sql/pglite', 'pg', 'autocannon', '@fastify/rate-limit'].map((p) => [p, versionOf(p)]),
    ),
    loadAverageAtStart: os.loadavg().map((v) => Math.round(v * 100) / 100),
    memoryCopyGBs: memoryCopyGBs(),
    ...(postgresCommit ? { postgresCommit } : {}),
  };
}
