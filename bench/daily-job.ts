import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Database, migrate, openDatabase, parseDatabaseUrl, repositories } from '../src/db/index.ts';
import { analyzeTables } from '../src/jobs/index.ts';
import { TEST_CARDS } from '../src/providers/sandbox/index.ts';
import { secretBox, singleKey } from '../src/secrets/index.ts';

export interface DailyJobResult {
  engine: 'postgres' | 'pglite';
  imprints: number;
  held: number;
  wall_s: number;
  per_second: number;
  peak_rss_mb: number;
  /**
   * CPU seconds the job's process spent (PGlite's database included), and PostgreSQL's server
   * processes on this host over the same span (null on PGlite, or a server elsewhere). On a
   * shared host, CPU per hold moves less from run to run than the wall time does.
   */
  job_cpu_s: number;
  database_cpu_s: number | null;
  command: string;
  counts: Record<string, number>;
}

export interface DailyJobOptions {
  engine: 'postgres' | 'pglite';
  /** A fresh, empty PostgreSQL database, or `pglite://<fresh directory>` nobody holds. */
  databaseUrl: string;
  count: number;
  /** The SECRET_KEY the tokens are sealed with; the job is given the same one. */
  secretKey: string;
  log: (line: string) => void;
  /** Extra node flags for the job's process, e.g. `--cpu-prof` to profile it. */
  nodeArgs?: readonly string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Hotels the imprints are spread over: the job reads tenants through a join, so more than one. */
const TENANTS = 20;
/** Rows per seeding statement: big enough for few round trips, small enough for PGlite's memory. */
const CHUNK = 5_000;

/**
 * The daily job (issue 5, item 4): `count` imprints whose guests registered a card through
 * the sandbox, all due on D, then the real `payreq job run create_deferred_payments` in its
 * own process, timed from spawn to exit, its peak RSS read from inside it. The database is
 * checked afterwards: a run that holds fewer than `count` throws instead of reporting a rate.
 */
export async function benchDailyJob(opts: DailyJobOptions): Promise<DailyJobResult> {
  const { log, count } = opts;
  if (!Number.isInteger(count) || count < 1) throw new Error(`daily job bench: count must be >= 1 (got ${count})`);
  const date = new Date().toLocaleDateString('sv');

  let db = await openDatabase(parseDatabaseUrl(opts.databaseUrl));
  try {
    await migrate(db);
    const seedStart = performance.now();
    await seed(db, opts.secretKey, count, date);
    log(`daily job (${opts.engine}): seeded ${count} due imprints in ${seconds(performance.now() - seedStart)} s`);
  } finally {
    await db.close();
  }

  const run = await runJob(opts, date);
  const database_cpu_s = run.databaseCpuS === null ? null : round(run.databaseCpuS, 2);
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(run.output)) if (typeof v === 'number') counts[k] = v;

  db = await openDatabase(parseDatabaseUrl(opts.databaseUrl));
  let held: number;
  try {
    held = await verify(db, count);
  } finally {
    await db.close();
  }
  const wall_s = run.wallMs / 1000;
  const result: DailyJobResult = {
    engine: opts.engine,
    imprints: count,
    held,
    wall_s: round(wall_s, 3),
    per_second: Math.round(held / wall_s),
    peak_rss_mb: round(run.maxRssKb / 1024, 1),
    job_cpu_s: round(run.jobCpuS, 2),
    database_cpu_s,
    command: run.command,
    counts,
  };
  log(
    `daily job (${opts.engine}): ${held} held in ${result.wall_s} s, ${result.per_second}/s, peak RSS ${result.peak_rss_mb} MB, ` +
      `CPU ${result.job_cpu_s} s in the job${database_cpu_s === null ? '' : `, ${database_cpu_s} s in PostgreSQL`}`,
  );
  return result;
}

/**
 * What `count` guests' card registrations leave behind, written set-based in chunks: the
 * sandbox's vault row (the token its silentHold looks up) and its verification transaction;
 * the request AUTHORISED with the token sealed to its own id (as the IPN seals it), the
 * masked card and the verification as its provider transaction; the verification's ledger
 * row, the provider event and the history (with its events) a create, an opened form and the
 * IPN write. Check-ins are spread over D..D+2.
 */
async function seed(db: Database, secretKey: string, count: number, date: string): Promise<void> {
  const tenants = await db.query<{ id: string }>(
    `INSERT INTO tenants (id, name) SELECT gen_random_uuid(), 'Bench hotel ' || g FROM generate_series(1, $1::int) g
     RETURNING id`,
    [TENANTS],
  );
  const tenantIds = tenants.rows.map((r) => r.id);
  const box = secretBox(singleKey(secretKey), 'card-token');
  const year = date.slice(0, 4);
  for (let start = 0; start < count; start += CHUNK) {
    const n = Math.min(CHUNK, count - start);
    const ids: string[] = [];
    const tenant: string[] = [];
    const refs: string[] = [];
    const checkins: string[] = [];
    const tokens: string[] = [];
    const sealed: string[] = [];
    const txns: string[] = [];
    const events: string[] = [];
    for (let i = start; i < start + n; i++) {
      const id = randomUUID();
      const token = `tok_${randomBytes(12).toString('hex')}`;
      ids.push(id);
      tenant.push(tenantIds[i % TENANTS] as string);
      // Unique per tenant, like the tenant's sequence would number them.
      refs.push(`IMP-${year}-${String(Math.floor(i / TENANTS) + 1).padStart(4, '0')}`);
      checkins.push(addDays(date, i % 3));
      tokens.push(token);
      sealed.push(box.seal(token, id));
      txns.push(`txn_${randomBytes(12).toString('hex')}`);
      events.push(`evt_${randomBytes(12).toString('hex')}`);
    }
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO sandbox_tokens (token, card_number, exp_month, exp_year)
         SELECT t, $2, 12, 2031 FROM unnest($1::text[]) t`,
        [tokens, TEST_CARDS.accepted],
      );
      await tx.query(
        `INSERT INTO sandbox_transactions (id, order_id, kind, status, amount, currency, token)
         SELECT x.txn, x.id, 'verification', 'accepted', 0, 'EUR', x.tok
           FROM unnest($1::text[], $2::uuid[], $3::text[]) AS x(txn, id, tok)`,
        [txns, ids, tokens],
      );
      await tx.query(
        `INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
           guest_email, guest_first_name, guest_last_name, language, reservation_ref, reservation_data, checkin,
           masked_pan, card_expiry_month, card_expiry_year, card_token, provider, provider_transaction_id,
           link_expires_at, email_sent)
         SELECT x.id, x.tenant, x.ref, 'IMPRINT', 'AUTHORISED', 15000, 'EUR',
           'guest' || (x.k + $7) || '@example.com', 'Guest', 'Number ' || (x.k + $7), 'en', 'RES-' || (x.k + $7),
           jsonb_build_object('checkin', x.checkin), x.checkin::date,
           $8, 12, 2031, x.sealed, 'sandbox', x.txn, now() + interval '30 days', true
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
                AS x(id, tenant, ref, checkin, sealed, txn, k)`,
        [ids, tenant, refs, checkins, sealed, txns, start, maskPan(TEST_CARDS.accepted)],
      );
      await tx.query(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider,
           provider_transaction_id, idempotency_key, state, source, actor)
         SELECT x.id, x.tenant, 'verification', 0, 'EUR', 'sandbox', x.txn, 'event:sandbox:' || x.e, 'succeeded',
                'ipn', 'sandbox'
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS x(id, tenant, txn, e)`,
        [ids, tenant, txns, events],
      );
      await tx.query(
        `INSERT INTO provider_events (provider, event_id, payment_request_id, outcome, applied)
         SELECT 'sandbox', e, id, 'registered', true FROM unnest($1::text[], $2::uuid[]) AS x(e, id)`,
        [events, ids],
      );
      await tx.query(
        `INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor, detail)
         SELECT x.id, x.tenant, s.from_status, s.to_status, s.source, s.actor,
                CASE WHEN s.source = 'ipn' THEN jsonb_build_object('event_id', x.e, 'detail', NULL) END
           FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS x(id, tenant, e)
           CROSS JOIN (VALUES (1, NULL, 'NOT_INITIATED', 'api', 'bench'), (2, 'NOT_INITIATED', 'PENDING', 'guest', NULL),
                              (3, 'PENDING', 'AUTHORISED', 'ipn', 'sandbox')) AS s(k, from_status, to_status, source, actor)
          ORDER BY x.id, s.k`,
        [ids, tenant, events],
      );
    });
  }
  // Fresh statistics, as the service's nightly analyze_tables leaves them: the job's plan is
  // the one production gets.
  await analyzeTables(repositories(db));
}

function maskPan(digits: string): string {
  return `${digits.slice(0, 6)}${'X'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * Read in the job's own process as it exits (main.ts ends with process.exit, which runs
 * 'exit' listeners): the peak resident set of that process alone, with no external tool.
 * On Linux, VmHWM from /proc/self/status: getrusage's maxRSS survives exec, so it can carry
 * the high-water mark of the forked copy of this (large) benchmark process.
 */
export const RSS_PRELOAD = `data:text/javascript,${encodeURIComponent(
  `import { readFileSync, writeFileSync } from 'node:fs';
   process.on('exit', () => {
     let kb = process.resourceUsage().maxRSS, how = 'maxRSS';
     try { const m = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8')); if (m) { kb = Number(m[1]); how = 'VmHWM'; } } catch {}
     const u = process.resourceUsage();
     try { writeFileSync(process.env.PAYREQ_BENCH_RSS_FILE, kb + ' ' + how + ' ' + u.maxRSS + ' ' + (u.userCPUTime + u.systemCPUTime) / 1e6); } catch {}
   });`,
)}`;

/**
 * CPU seconds used so far by this host's PostgreSQL processes, read from /proc (null where
 * there is none to read: a server elsewhere). The job's backends end with the job; a backend's
 * time is then added to its parent's (the postmaster's) `cutime` and `cstime`, counted too.
 * A backend reaped while the scan runs (listed, then gone before its own line is read, the
 * postmaster read before it) would drop out of both: the scan is taken again. Without that, the
 * seeding connection's backend, ending as the job is about to start, was now and then missed by
 * the reading before the job and so counted in the job's PostgreSQL CPU (4.7 s for 2.3).
 */
export async function localPostgresCpuS(): Promise<number | null> {
  let scan = await scanPostgresCpu();
  for (let attempt = 1; scan.vanished && attempt < 20; attempt++) scan = await scanPostgresCpu();
  return scan.seen ? scan.ticks / 100 : null; // USER_HZ on Linux
}

async function scanPostgresCpu(): Promise<{ ticks: number; seen: boolean; vanished: boolean }> {
  let ticks = 0;
  let seen = false;
  let vanished = false;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return { ticks, seen, vanished };
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    } catch {
      // Ended and reaped since the listing: maybe a backend whose time the postmaster's line lacked.
      vanished = true;
      continue;
    }
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    if (name !== 'postgres') continue;
    seen = true;
    // Fields after the name: state is 3rd; utime, stime, cutime, cstime are 14th to 17th.
    const f = stat.slice(close + 2).split(' ');
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return { ticks, seen, vanished };
}

async function runJob(
  opts: DailyJobOptions,
  date: string,
): Promise<{
  wallMs: number;
  maxRssKb: number;
  jobCpuS: number;
  databaseCpuS: number | null;
  output: Record<string, unknown>;
  command: string;
}> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'payreq-bench-job-'));
  const rssFile = path.join(tmp, 'maxrss');
  const args = ['job', 'run', 'create_deferred_payments', '--date', date, '--json'];
  const settings = { NODE_ENV: 'production', PAYMENT_PROVIDER: 'sandbox', SANDBOX_IN_PRODUCTION: 'true' };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...settings,
    DATABASE_URL: opts.databaseUrl,
    SECRET_KEY: opts.secretKey,
    PAYREQ_BENCH_RSS_FILE: rssFile,
    // The preload that reads the peak RSS, and nothing of the parent's.
    NODE_OPTIONS: `--import=${RSS_PRELOAD}`,
    // bin/payreq.js names `node` in its first line: the Node running this bench.
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  // The command as an operator types it: the executable, with the Node flags its first line
  // gives. With --node-arg (an experiment), node runs it with those flags instead.
  const [file, argv] = opts.nodeArgs?.length
    ? [process.execPath, [...opts.nodeArgs, 'bin/payreq.js', ...args]]
    : [path.join(ROOT, 'bin/payreq.js'), args];
  const shown = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
  const runner = opts.nodeArgs?.length ? ['node', ...opts.nodeArgs, 'bin/payreq.js'] : ['payreq'];
  const command = [...shown, 'DATABASE_URL=… SECRET_KEY=…', ...runner, ...args].join(' ');
  opts.log(`daily job (${opts.engine}): ${command}`);
  try {
    const serverCpuBefore = opts.engine === 'postgres' ? await localPostgresCpuS() : null;
    const started = performance.now();
    const child = spawn(file, argv, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    const wallMs = performance.now() - started;
    const serverCpuAfter = serverCpuBefore === null ? null : await localPostgresCpuS();
    if (code !== 0) throw new Error(`daily job bench: the job exited with ${code}: ${stderr.trim() || stdout.trim()}`);
    let output: Record<string, unknown>;
    try {
      output = JSON.parse(stdout) as Record<string, unknown>;
    } catch {
      throw new Error(`daily job bench: the job did not print JSON: ${stdout.slice(0, 500)}`);
    }
    const rss = (await readFile(rssFile, 'utf8').catch(() => 'NaN')).split(' ');
    const maxRssKb = Number(rss[0]);
    if (rss[1]) opts.log(`daily job (${opts.engine}): peak RSS from ${rss[1]}; getrusage maxRSS ${rss[2]} kB`);
    if (!Number.isFinite(maxRssKb)) throw new Error('daily job bench: the job process did not report its peak RSS');
    const jobCpuS = Number(rss[3]);
    if (!Number.isFinite(jobCpuS)) throw new Error('daily job bench: the job process did not report its CPU time');
    const databaseCpuS = serverCpuBefore === null || serverCpuAfter === null ? null : serverCpuAfter - serverCpuBefore;
    return { wallMs, maxRssKb, jobCpuS, databaseCpuS, output, command };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Counts in the database, not what the job says: every request held, one history row and one
 * sandbox hold each, nothing left claimed. Anything short of `expected` throws.
 */
async function verify(db: Database, expected: number): Promise<number> {
  const r = await db.query<{ held: number; claimed: number; history: number; holds: number }>(
    `SELECT (SELECT count(*) FROM payment_requests WHERE status = 'AUTHORISED_TO_VALIDATE'
               AND hold_expires_at IS NOT NULL AND provider_transaction_id LIKE 'txn_%') AS held,
            (SELECT count(*) FROM payment_requests WHERE pending_action IS NOT NULL) AS claimed,
            (SELECT count(*) FROM status_history WHERE to_status = 'AUTHORISED_TO_VALIDATE' AND source = 'job') AS history,
            (SELECT count(*) FROM sandbox_transactions WHERE kind = 'hold' AND status = 'authorised') AS holds`,
  );
  const c = r.rows[0];
  if (!c) throw new Error('daily job bench: the verification query returned nothing');
  const problems: string[] = [];
  if (c.held !== expected) problems.push(`${c.held} of ${expected} requests AUTHORISED_TO_VALIDATE`);
  if (c.history !== c.held) problems.push(`${c.history} history rows for ${c.held} holds`);
  if (c.holds !== c.held) problems.push(`${c.holds} sandbox holds for ${c.held} requests`);
  if (c.claimed !== 0) problems.push(`${c.claimed} requests left claimed`);
  if (problems.length > 0) throw new Error(`daily job bench: the job did not do its work: ${problems.join('; ')}`);
  return c.held;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
