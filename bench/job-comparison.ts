// The daily job beside an older commit's, in one run, round by round (issue 51):
//   node bench/job-comparison.ts [--count 100000] [--rounds 2] [--ref cece624]
// PostgreSQL only: each side makes and drops its own database on BENCH_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres). Prints the figures as JSON on stdout.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { localPostgresCpuS } from './daily-job.ts';
import { checkOutReference, referenceMissing } from './reference-checkout.ts';

/** The code before the ledger (2026-11-23): the job's last commit without money_ledger. */
export const DEFAULT_REFERENCE = 'cece624';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DRIVER = 'bench/daily-job-main.ts';
const LOADER = fileURLToPath(new URL('./reference-loader.ts', import.meta.url));

/** One side's run of the job over `holds` due imprints, each on a database of its own. */
export interface JobSideFigures {
  held: number;
  per_second: number;
  wall_s: number;
  /** CPU seconds of the job's process, and of this host's PostgreSQL over the job's span (null: none here). */
  job_cpu_s: number;
  database_cpu_s: number | null;
  peak_rss_mb: number;
  job_us_per_hold: number;
  database_us_per_hold: number | null;
}

export interface JobComparisonRound {
  round: number;
  reference: JobSideFigures;
  current: JobSideFigures;
  /** Current holds per second over the reference's, this round. */
  ratio: number;
}

export interface JobComparison {
  ref: string;
  /** The reference as the report names it. */
  label: string;
  commit: string;
  commit_date: string;
  holds: number;
  rounds: JobComparisonRound[];
  /** Each side's best round (holds per second), and current over reference. */
  best: { reference: number; current: number; ratio: number };
  /** The lowest CPU a hold cost over the rounds, in µs: a neighbour on the host only adds to it. */
  cpu_per_hold_us: Record<'reference' | 'current', { job: number; database: number | null }>;
  how: string;
}

export type JobComparisonResult = JobComparison | { ref: string; label: string; skipped: string };

/** Thrown once a SIGINT or SIGTERM has stopped the comparison and everything it made is removed. */
export class Interrupted extends Error {}

export interface JobComparisonOptions {
  count: number;
  rounds: number;
  ref?: string;
  adminUrl: string;
  log: (line: string) => void;
}

/**
 * Alternates, round by round, the reference's own `bench/daily-job-main.ts` (run from a detached
 * worktree of `ref`: its schema, its seeding, its job) and this tree's, each as a child process
 * at `count` holds. The worktree is removed at the end, on failure and on SIGINT/SIGTERM too.
 */
export async function compareDailyJob(opts: JobComparisonOptions): Promise<JobComparisonResult> {
  const { count, rounds, log } = opts;
  const ref = opts.ref ?? DEFAULT_REFERENCE;
  const label = ref === DEFAULT_REFERENCE ? `${ref} (before the ledger)` : ref;
  if (!Number.isInteger(count) || count < 1) throw new Error(`job comparison: count must be >= 1 (got ${count})`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`job comparison: rounds must be >= 1 (got ${rounds})`);
  const missing = await referenceMissing(ROOT, ref, DRIVER);
  if (missing !== null) {
    log(`job comparison: skipped, ${missing}`);
    return { ref, label, skipped: missing };
  }

  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    log(`job comparison: ${signal}, stopping the running side and cleaning up`);
    abort.abort(new Interrupted(`job comparison: interrupted by ${signal}`));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const admin = new pg.Client({ connectionString: opts.adminUrl });
  let checkout: Awaited<ReturnType<typeof checkOutReference>> | undefined;
  try {
    await admin.connect();
    checkout = await checkOutReference(ROOT, ref);
    abort.signal.throwIfAborted();
    log(`job comparison: ${ref} (${checkout.commit.slice(0, 12)}, ${checkout.date}) checked out in ${checkout.dir}`);
    const sides = { admin, adminUrl: opts.adminUrl, log, signal: abort.signal, scratch: checkout.scratch };
    const done: JobComparisonRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      const reference = await runReference(sides, checkout.dir, count, round);
      const current = await runCurrent(sides, count);
      const r = { round, reference, current, ratio: round2(current.per_second / reference.per_second) };
      done.push(r);
      log(`job comparison, round ${round}: ${describe('reference', reference)}`);
      log(`job comparison, round ${round}: ${describe('current  ', current)}`);
      log(`job comparison, round ${round}: current/reference ${r.ratio.toFixed(2)}`);
    }
    const bestOf = (side: 'reference' | 'current') => Math.max(...done.map((r) => r[side].per_second));
    const best = { reference: bestOf('reference'), current: bestOf('current'), ratio: 0 };
    best.ratio = round2(best.current / best.reference);
    const result: JobComparison = {
      ref,
      label,
      commit: checkout.commit,
      commit_date: checkout.date,
      holds: count,
      rounds: done,
      best,
      cpu_per_hold_us: { reference: lowestCpu(done, 'reference'), current: lowestCpu(done, 'current') },
      how:
        `each side's ${DRIVER} in its own process on Node ${process.versions.node}; the reference's through ` +
        'bench/reference-loader.ts (esbuild, as tsx ran it), its job on its own build (dist/, compiled by its bench)',
    };
    log(
      `job comparison: best rounds ${best.current}/s current, ${best.reference}/s ${ref}: ${best.ratio.toFixed(2)}; ` +
        `CPU a hold (µs, job + PostgreSQL): current ${cpuText(result.cpu_per_hold_us.current)}, ` +
        `${ref} ${cpuText(result.cpu_per_hold_us.reference)}`,
    );
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await checkout?.remove();
    await admin.end().catch(() => undefined);
  }
}

interface Sides {
  admin: pg.Client;
  adminUrl: string;
  log: (line: string) => void;
  signal: AbortSignal;
  /** The drivers' TMPDIR: what a killed driver leaves there goes with the checkout. */
  scratch: string;
}

/** Logged by the reference's driver just before it spawns the job, and just after the job exits. */
const JOB_STARTS = /^daily job \(postgres\): .*\bjob run create_deferred_payments\b/;
const JOB_ENDED = /^daily job \(postgres\): peak RSS from /;

/**
 * The job's CPU, read as it exits (the reference's driver does not read it): a preload given
 * through the driver's --node-arg, which it passes to the job's node.
 */
const CPU_PRELOAD = `data:text/javascript,${encodeURIComponent(
  `import { writeFileSync } from 'node:fs';
   process.on('exit', () => { const u = process.resourceUsage();
     try { writeFileSync(process.env.PAYREQ_JOBVS_CPU_FILE, String((u.userCPUTime + u.systemCPUTime) / 1e6)); } catch {} });`,
)}`;

async function runReference(sides: Sides, dir: string, count: number, round: number): Promise<JobSideFigures> {
  const cpuFile = path.join(sides.scratch, `job-cpu-${round}`);
  const out = await runDriver(sides, {
    side: 'reference',
    cwd: dir,
    args: [`--import=${LOADER}`, DRIVER, '--engine=postgres', `--count=${count}`, `--node-arg=--import=${CPU_PRELOAD}`],
    env: { PAYREQ_JOBVS_CPU_FILE: cpuFile },
    bracketDatabaseCpu: true,
  });
  const r = driverFigures('reference', out.stdout, count);
  const jobCpu = Number(await readFile(cpuFile, 'utf8').catch(() => 'NaN'));
  if (!Number.isFinite(jobCpu)) throw new Error("job comparison: the reference's job did not report its CPU time");
  return side(r, jobCpu, out.databaseCpuS);
}

async function runCurrent(sides: Sides, count: number): Promise<JobSideFigures> {
  const out = await runDriver(sides, {
    side: 'current',
    cwd: ROOT,
    args: [DRIVER, '--engine=postgres', `--count=${count}`],
    // payreq keeps its compile cache under the temporary directory: the one it has outside this comparison.
    env: { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || path.join(tmpdir(), 'node-compile-cache') },
    bracketDatabaseCpu: false,
  });
  const r = driverFigures('current', out.stdout, count);
  const jobCpu = r.job_cpu_s;
  if (typeof jobCpu !== 'number') throw new Error("job comparison: the current driver's JSON has no job_cpu_s");
  const db = r.database_cpu_s;
  if (db !== null && typeof db !== 'number') throw new Error("job comparison: the current driver's database_cpu_s");
  return side(r, jobCpu, db);
}

type DriverFigures = Record<'held' | 'per_second' | 'wall_s' | 'peak_rss_mb', number> & Record<string, unknown>;

/** The JSON a driver prints on stdout, each figure the comparison uses checked: a missing one throws. */
function driverFigures(who: string, stdout: string, count: number): DriverFigures {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.slice(stdout.indexOf('{')));
  } catch {
    throw new Error(`job comparison: the ${who} driver printed no JSON: ${stdout.slice(0, 300)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`job comparison: the ${who} driver's output`);
  const o = parsed as Record<string, unknown>;
  for (const key of ['imprints', 'held', 'per_second', 'wall_s', 'peak_rss_mb']) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new Error(`job comparison: the ${who} driver's JSON has no ${key} (${JSON.stringify(v)})`);
  }
  if (o.held !== count) throw new Error(`job comparison: the ${who} job held ${o.held} of ${count}`);
  return o as DriverFigures;
}

function side(r: DriverFigures, jobCpuS: number, databaseCpuS: number | null): JobSideFigures {
  return {
    held: r.held,
    per_second: r.per_second,
    wall_s: r.wall_s,
    job_cpu_s: round2(jobCpuS),
    database_cpu_s: databaseCpuS === null ? null : round2(databaseCpuS),
    peak_rss_mb: r.peak_rss_mb,
    job_us_per_hold: Math.round((jobCpuS * 1e6) / r.held),
    database_us_per_hold: databaseCpuS === null ? null : Math.round((databaseCpuS * 1e6) / r.held),
  };
}

interface DriverSpec {
  side: 'reference' | 'current';
  cwd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /**
   * Read this host's PostgreSQL CPU when the driver logs that it spawns the job and when it
   * logs the job's exit, as this tree's driver reads it itself: the reference's does not.
   */
  bracketDatabaseCpu: boolean;
}

/**
 * One driver as a child process in a process group of its own (the terminal's Ctrl-C reaches
 * this process only; the group, the driver and its job, is ended here). Its connections carry
 * an application_name of their own, through which its database is found and dropped should
 * it be stopped before it drops it itself.
 */
async function runDriver(sides: Sides, spec: DriverSpec): Promise<{ stdout: string; databaseCpuS: number | null }> {
  sides.signal.throwIfAborted();
  const appName = `payreq-jobvs-${spec.side}-${randomBytes(4).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...spec.env,
    PGAPPNAME: appName,
    BENCH_POSTGRES_URL: sides.adminUrl,
    TMPDIR: sides.scratch,
  };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, spec.args, {
    cwd: spec.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  const databases = new Set<string>();
  let watching = true;
  const findDatabases = async () => {
    const r = await sides.admin.query<{ datname: string }>(
      `SELECT DISTINCT datname FROM pg_stat_activity WHERE application_name = $1 AND datname LIKE 'payreq\\_bench\\_job\\_%'`,
      [appName],
    );
    for (const row of r.rows) databases.add(row.datname);
  };
  // Its database is found while it seeds, and the watch ends before the job starts: one
  // connection's cheap query, never inside the span whose PostgreSQL CPU is read.
  const watch = setInterval(() => {
    if (!watching || databases.size > 0) return;
    findDatabases().catch(() => undefined);
  }, 100);
  // Stopped before its database was seen (between CREATE DATABASE and the first connection to
  // it), the driver runs on until it connects, for at most 10 s: killed sooner, it would leave a
  // database nobody knows the name of.
  const stopGroup = async () => {
    watching = false;
    const until = performance.now() + 10_000;
    await findDatabases().catch(() => undefined);
    while (databases.size === 0 && child.exitCode === null && performance.now() < until) {
      await sleep(50);
      await findDatabases().catch(() => undefined);
    }
    if (databases.size === 0 && child.exitCode === null)
      sides.log(`job comparison: the ${spec.side} driver's database was not seen; check for a payreq_bench_job_* left`);
    if (pid !== undefined) signalGroup(-pid, 'SIGKILL');
  };
  const onAbort = () => void stopGroup();
  sides.signal.addEventListener('abort', onAbort, { once: true });

  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  const tail: string[] = [];
  let before: Promise<number | null> | undefined;
  let after: Promise<number | null> | undefined;
  createInterface({ input: child.stderr }).on('line', (line) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    sides.log(`  ${spec.side}: ${line.length > 220 ? `${line.slice(0, 220)}…` : line}`);
    if (JOB_STARTS.test(line)) {
      watching = false;
      if (spec.bracketDatabaseCpu && before === undefined) before = localPostgresCpuS();
    } else if (spec.bracketDatabaseCpu && before !== undefined && after === undefined && JOB_ENDED.test(line)) {
      // The driver goes on to count the holds on the server: held still until this is read.
      if (pid !== undefined) after = whileStopped(pid, localPostgresCpuS);
    }
  });
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    sides.signal.throwIfAborted();
    if (code !== 0) throw new Error(`job comparison: the ${spec.side} driver exited with ${code}:\n${tail.join('\n')}`);
    if (!spec.bracketDatabaseCpu) return { stdout, databaseCpuS: null };
    if (before === undefined || after === undefined)
      throw new Error(
        `job comparison: the ${spec.side} driver did not log the job's start and end (${JOB_STARTS}, ${JOB_ENDED}): ` +
          'its PostgreSQL CPU cannot be read',
      );
    const [a, b] = await Promise.all([before, after]);
    return { stdout, databaseCpuS: a === null || b === null ? null : b - a };
  } finally {
    clearInterval(watch);
    sides.signal.removeEventListener('abort', onAbort);
    // A driver drops its own database as it ends; one stopped, or failing hard, leaves it.
    for (const name of databases) {
      await sides.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((e: unknown) => {
        sides.log(`job comparison: could not drop ${name}: ${e instanceof Error ? e.message : String(e)}`);
      });
    }
  }
}

function signalGroup(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone.
  }
}

async function whileStopped<T>(pid: number, read: () => Promise<T>): Promise<T> {
  signalGroup(pid, 'SIGSTOP');
  try {
    return await read();
  } finally {
    signalGroup(pid, 'SIGCONT');
  }
}

function lowestCpu(
  rounds: JobComparisonRound[],
  which: 'reference' | 'current',
): { job: number; database: number | null } {
  const job = Math.min(...rounds.map((r) => r[which].job_us_per_hold));
  const dbs = rounds.map((r) => r[which].database_us_per_hold).filter((v): v is number => v !== null);
  return { job, database: dbs.length === rounds.length ? Math.min(...dbs) : null };
}

function describe(label: string, s: JobSideFigures): string {
  const db = s.database_cpu_s === null ? 'n/a' : `${s.database_cpu_s} s`;
  return (
    `${label} ${s.per_second}/s, ${s.wall_s} s, job CPU ${s.job_cpu_s} s, PostgreSQL CPU ${db}, ` +
    `peak RSS ${s.peak_rss_mb} MB`
  );
}

function cpuText(c: { job: number; database: number | null }): string {
  return `${c.job} + ${c.database ?? 'n/a'}`;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '2' },
      ref: { type: 'string', default: DEFAULT_REFERENCE },
    },
  });
  try {
    const result = await compareDailyJob({
      count: Number(values.count),
      rounds: Number(values.rounds),
      ref: values.ref,
      adminUrl: process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 130;
  }
}
