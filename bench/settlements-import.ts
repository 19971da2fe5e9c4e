import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repositories } from '../src/db/index.ts';
import { importJrb } from '../src/settlements/index.ts';
import { type Engine, freshDatabase, openMigrated } from './environment.ts';

export interface SettlementsFigures {
  engine: string;
  lines: number;
  matched: number;
  file_mb: number;
  /** The first import of the file, then the same file again (which adds nothing). */
  first_s: number;
  again_s: number;
  lines_per_second: number;
  /** The JavaScript heap above what it held before the import, at its highest (sampled every 20 ms). */
  peak_heap_growth_mb: number;
  peak_rss_mb: number;
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

/**
 * `payreq settlements import`'s work on a report of `count` lines (Lyra's V2 layout, one
 * remittance a day over a month), against a ledger holding each line's payment: nine lines in
 * ten match, one names an order payreq does not know. The file streams from disk as the command
 * reads it; the heap is sampled while it runs.
 */
export async function benchSettlementsImport(
  engine: Engine,
  adminUrl: string,
  count: number,
  log: (s: string) => void,
): Promise<SettlementsFigures> {
  const fresh = await freshDatabase(engine, adminUrl, 'settlements');
  const dir = mkdtempSync(path.join(tmpdir(), 'payreq-bench-jrb-'));
  const db = await openMigrated(fresh.url);
  try {
    const repos = repositories(db);
    const tenant = (await repos.tenants.create({ name: 'Bench Hotel' })).id;
    log(`${engine} settlements: seeding ${count} payments in the ledger`);
    await db.query(
      `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider, idempotency_key, state,
         source, legacy_trans_id)
       SELECT gen_random_uuid(), $1, 'payment', 1000 + i % 50000, 'EUR', 'lyra', 'bench:' || i, 'succeeded', 'ipn',
              lpad((i % 900000)::text, 6, '0')
         FROM generate_series(1, $2::int) AS i`,
      [tenant, count],
    );
    const rows = await db.query<{ order_id: string; number: string; amount: number }>(
      `SELECT payment_request_id AS order_id, legacy_trans_id AS number, amount FROM money_ledger
        WHERE tenant_id = $1 ORDER BY id`,
      [tenant],
    );
    const file = path.join(dir, 'jrb.csv');
    const out = createWriteStream(file);
    const write = async (line: string) => {
      if (!out.write(`${line}\r\n`)) await once(out, 'drain');
    };
    await write('TITRE;BENCH HOTEL;26/11/28_11:00:00;TABLE_V2');
    await write(['ENTETE', ...LABELS].join(';'));
    let i = 0;
    for (const r of rows.rows) {
      const unknown = i % 10 === 9;
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
        ORDER_ID: unknown ? `BO-${i}` : r.order_id,
        OPERATION_TYPE: 'DT',
        OPERATION_NUMBER: '1',
        REMITTANCE_DATE: `202612${day}`,
        REMITTANCE_TIME: '0530',
        BRUT_AMOUNT: String(r.amount),
        MATCH_STATUS: 'MATCH_OK',
        REMITTANCE_NB: `1${day}`,
        NET_AMOUNT: String(r.amount - fee),
        COMMISSION_AMOUNT: String(fee),
        COMMISSION_CURRENCY: '978',
      };
      await write(['MATCHING', ...LABELS.map((l) => f[l] ?? '')].join(';'));
      i++;
    }
    await write(`FIN;${count}`);
    out.end();
    await once(out, 'finish');
    const fileMb = (await import('node:fs')).statSync(file).size / 1024 / 1024;

    const deps = { db, repos };
    const target = { tenantId: tenant, provider: 'lyra' };
    global.gc?.();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakRss = base.rss;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    }, 20);
    log(`${engine} settlements: importing ${count} lines (${fileMb.toFixed(1)} MB)`);
    const t0 = performance.now();
    const result = await importJrb(deps, target, createReadStream(file, { highWaterMark: 64 * 1024 }));
    const first = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await importJrb(deps, target, createReadStream(file, { highWaterMark: 64 * 1024 }));
    const again = (performance.now() - t1) / 1000;
    clearInterval(sampler);
    log(
      `${engine} settlements: ${result.matched}/${result.lines} matched in ${first.toFixed(1)} s, again ${again.toFixed(1)} s`,
    );
    return {
      engine,
      lines: result.lines,
      matched: result.matched,
      file_mb: fileMb,
      first_s: first,
      again_s: again,
      lines_per_second: result.lines / first,
      peak_heap_growth_mb: (peakHeap - base.heapUsed) / 1024 / 1024,
      peak_rss_mb: peakRss / 1024 / 1024,
    };
  } finally {
    await db.close();
    await fresh.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
