import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repositories } from '../src/db/index.ts';
import { RSS_PRELOAD } from './daily-job.ts';
import { type Engine, freshDatabase, openMigrated, SECRET_KEY } from './environment.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The old-space cap each import runs under (V8's --max-old-space-size). */
export const HEAP_CAP_MB = 64;

/** One `payreq settlements import` process: its time, its own peak RSS and CPU, what it printed. */
export interface ImportRun {
  lines: number;
  matched: number;
  wall_s: number;
  peak_rss_mb: number;
  cpu_s: number;
}

export interface SettlementsFigures {
  engine: string;
  file_mb: number;
  /** A report of 1,000 lines: the command's fixed memory (Node, the driver, PGlite's own). */
  small: ImportRun;
  /** The report of `lines` lines, first imported, then the same file again (which adds nothing). */
  first: ImportRun;
  again: ImportRun;
  command: string;
}

const LABELS = [
  'MERCHANT_COUNTRY',
  'MERCHANT_ID',
  'CONTRACT',
  'PAYMENT_DATE',
  'TRANSACTION_ID',
  'ORIGIN_AMOUNT',
  'CURRENCY_CODE',
  'PAYMENT_METHOD',
  'ORDER_ID',
  'RETURN_CONTEXT',
  'CUSTOMER_ID',
  'OPERATION_TYPE',
  'OPERATION_NUMBER',
  'REMITTANCE_DATE',
  'REMITTANCE_TIME',
  'BRUT_AMOUNT',
  'MATCH_STATUS',
  'REMITTANCE_NB',
  'NET_AMOUNT',
  'COMMISSION_AMOUNT',
  'COMMISSION_CURRENCY',
];

/** A report in Lyra's V2 layout of `rows`, one remittance a day over a month, one line in ten unknown. */
async function writeReport(
  file: string,
  rows: readonly { order_id: string; number: string; amount: number }[],
  remittancePrefix: string,
): Promise<void> {
  const out = createWriteStream(file);
  const write = async (line: string) => {
    if (!out.write(`${line}\r\n`)) await once(out, 'drain');
  };
  await write('TITRE;BENCH HOTEL;26/11/28_11:00:00;TABLE_V2');
  await write(['ENTETE', ...LABELS].join(';'));
  let i = 0;
  for (const r of rows) {
    const day = String(1 + (i % 30)).padStart(2, '0');
    const fee = 25 + Math.round(r.amount * 0.014);
    const f: Record<string, string> = {
      MERCHANT_COUNTRY: 'FR',
      MERCHANT_ID: '012345678901234',
      CONTRACT: '1234567',
      PAYMENT_DATE: `202611${day}`,
      TRANSACTION_ID: r.number,
      ORIGIN_AMOUNT: String(r.amount),
      CURRENCY_CODE: '978',
      PAYMENT_METHOD: 'CB',
      ORDER_ID: i % 10 === 9 ? `BO-${i}` : r.order_id,
      OPERATION_TYPE: 'DT',
      OPERATION_NUMBER: '1',
      REMITTANCE_DATE: `202612${day}`,
      REMITTANCE_TIME: '0530',
      BRUT_AMOUNT: String(r.amount),
      MATCH_STATUS: 'MATCH_OK',
      REMITTANCE_NB: `${remittancePrefix}${day}`,
      NET_AMOUNT: String(r.amount - fee),
      COMMISSION_AMOUNT: String(fee),
      COMMISSION_CURRENCY: '978',
    };
    await write(['MATCHING', ...LABELS.map((l) => f[l] ?? '')].join(';'));
    i++;
  }
  await write(`FIN;${rows.length}`);
  out.end();
  await once(out, 'finish');
}

/** The command as an operator types it, in a process of its own; its peak RSS read inside it. */
async function runImport(databaseUrl: string, tenant: string, file: string, tmp: string): Promise<ImportRun> {
  const rssFile = path.join(tmp, `maxrss-${Date.now()}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'lyra',
    DATABASE_URL: databaseUrl,
    SECRET_KEY,
    PAYREQ_BENCH_RSS_FILE: rssFile,
    // The JavaScript heap capped: an import that held the file (15 MB of text, a hundred of
    // objects) would die of it. PGlite's memory is outside this heap.
    NODE_OPTIONS: `--import=${RSS_PRELOAD} --max-old-space-size=${HEAP_CAP_MB}`,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  const started = performance.now();
  const child = spawn(path.join(ROOT, 'bin/payreq.js'), ['settlements', 'import', '--tenant', tenant, file, '--json'], {
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
  const wall = (performance.now() - started) / 1000;
  if (code !== 0)
    throw new Error(`settlements bench: the import exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  const out = JSON.parse(stdout) as { lines: number; matched: number };
  const rss = (await readFile(rssFile, 'utf8')).split(' ');
  return {
    lines: out.lines,
    matched: out.matched,
    wall_s: wall,
    peak_rss_mb: Number(rss[0]) / 1024,
    cpu_s: Number(rss[3]),
  };
}

/**
 * `payreq settlements import` of a report of `count` lines (Lyra's V2 layout, a remittance a day
 * over a month) against a ledger holding each line's payment: nine lines in ten match, one
 * names an order payreq does not know. Each import is the real command in a process of its own,
 * reading the file from disk as it goes; its peak RSS beside that of a report of 1,000 lines
 * shows what the file's size adds.
 */
export async function benchSettlementsImport(
  engine: Engine,
  adminUrl: string,
  count: number,
  log: (s: string) => void,
): Promise<SettlementsFigures> {
  const fresh = await freshDatabase(engine, adminUrl, 'settlements');
  const tmp = mkdtempSync(path.join(tmpdir(), 'payreq-bench-jrb-'));
  try {
    const db = await openMigrated(fresh.url);
    let tenant: string;
    let rows: { order_id: string; number: string; amount: number }[];
    try {
      tenant = (await repositories(db).tenants.create({ name: 'Bench Hotel' })).id;
      log(`${engine} settlements: seeding ${count} payments in the ledger`);
      await db.query(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key,
           state, source, legacy_trans_id)
         SELECT gen_random_uuid(), $1, 'payment', 1000 + i % 50000, 'EUR', 'lyra', 'bench:' || i, 'succeeded', 'ipn',
                lpad((i % 900000)::text, 6, '0')
           FROM generate_series(1, $2::int) AS i`,
        [tenant, count + 1000],
      );
      rows = (
        await db.query<{ order_id: string; number: string; amount: number }>(
          `SELECT payment_request_id AS order_id, legacy_trans_id AS number, amount FROM money_ledger
            WHERE tenant_id = $1 ORDER BY id`,
          [tenant],
        )
      ).rows;
    } finally {
      // PGlite admits one process per directory: the command opens it next.
      await db.close();
    }
    const small = path.join(tmp, 'small.csv');
    const large = path.join(tmp, 'large.csv');
    await writeReport(small, rows.slice(count), '9');
    await writeReport(large, rows.slice(0, count), '1');
    const fileMb = statSync(large).size / 1024 / 1024;
    log(`${engine} settlements: importing 1,000 lines, then ${count} (${fileMb.toFixed(1)} MB) twice`);
    const smallRun = await runImport(fresh.url, tenant, small, tmp);
    const first = await runImport(fresh.url, tenant, large, tmp);
    const again = await runImport(fresh.url, tenant, large, tmp);
    log(
      `${engine} settlements: ${first.matched}/${first.lines} matched in ${first.wall_s.toFixed(1)} s (again ${again.wall_s.toFixed(1)} s); ` +
        `peak RSS ${first.peak_rss_mb.toFixed(0)} MB, ${smallRun.peak_rss_mb.toFixed(0)} MB for 1,000 lines`,
    );
    return {
      engine,
      file_mb: fileMb,
      small: smallRun,
      first,
      again,
      command: `NODE_OPTIONS=--max-old-space-size=${HEAP_CAP_MB} payreq settlements import --tenant ID FILE --json`,
    };
  } finally {
    await fresh.drop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
