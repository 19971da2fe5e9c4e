import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/index.ts';
import { isUuid } from '../domain/index.ts';
import { type ByteSource, type JrbLine, readJrb } from './jrb-reader.ts';
import { matchLine } from './payout-matching.ts';
import { type NewRemittanceLine, type RemittancesRepository, remittancesRepository } from './remittances-repository.ts';

/** What an import did, for the file: as `payreq settlements import --json` prints it. */
export interface ImportResult {
  /** Remittances the file names. */
  remittances: number;
  /** Its MATCHING records. */
  lines: number;
  /** Of those, how many pay out money payreq moved (now, after this import). */
  matched: number;
  unmatched: number;
  /**
   * Lines this import stored, or matched, for the first time: 0 for a file imported before.
   * Always given by a report's import; a Stripe fetch stores new payouts only and leaves it out.
   */
  changed?: number;
}

/**
 * Lines stored per statement: each batch reads its orders' ledger rows in one statement and
 * stores its lines in another, so a statement's fixed cost is paid once per 5,000 lines; a
 * batch's objects are a few MB at most.
 */
const BATCH = 5000;

export interface ImportDeps {
  db: Database;
}

/**
 * Imports a bank reconciliation report for a hotel, streamed: the file is read a line at a
 * time and stored five thousand lines at a time (memory holds one batch, whatever the file's
 * size), each line matched to the hotel's ledger by its order and transaction number. All of
 * it in one transaction: a file refused at any line (JrbRefused, naming it) stores nothing. A
 * line already stored (the same file again, or one overlapping it) adds nothing; one that
 * matched nothing then and does now is matched. The remittances' totals are recomputed from
 * their lines at the end.
 */
export async function importJrb(
  deps: ImportDeps,
  target: { tenantId: string; provider: string },
  source: ByteSource,
): Promise<ImportResult> {
  const { db } = deps;
  const repos = { remittances: remittancesRepository(db) };
  return db.transaction(
    async (tx) => {
      await repos.remittances.lockImports(tx, target.tenantId);
      const ids = new Map<string, string>();
      const result = { remittances: 0, lines: 0, matched: 0, unmatched: 0, changed: 0 };
      let shop: string | null = null;
      let batch: JrbLine[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const matched = await storeBatch(tx, repos, target, batch, ids, shop, result);
        for (const m of matched) {
          if (m) result.matched++;
          else result.unmatched++;
        }
        batch = [];
      };
      for await (const record of readJrb(source)) {
        if (record.kind === 'title') shop = record.shop || null;
        else if (record.kind === 'matching') {
          result.lines++;
          batch.push(record.value);
          if (batch.length >= BATCH) await flush();
        }
      }
      await flush();
      result.remittances = ids.size;
      await repos.remittances.refreshTotals(tx, [...ids.values()]);
      return result;
    },
    // An operator's import of a large file: its statements are not held to a request's bound.
    { unbounded: true },
  );
}

const remittanceKey = (l: JrbLine) => `${l.remittanceNb}\n${l.remittanceDate}\n${l.currency}`;

/** A line's key as stored: a digest of what names it (16 bytes, written as a uuid). */
function lineKey(text: string): string {
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** One batch: its remittances found or created, its orders' money read once, each line matched and stored. */
async function storeBatch(
  tx: Queryable,
  repos: { remittances: RemittancesRepository },
  target: { tenantId: string; provider: string },
  batch: readonly JrbLine[],
  ids: Map<string, string>,
  shop: string | null,
  counts: { changed: number },
): Promise<boolean[]> {
  const fresh = new Map<string, JrbLine>();
  for (const l of batch) if (!ids.has(remittanceKey(l))) fresh.set(remittanceKey(l), l);
  if (fresh.size > 0) {
    const keys = [...fresh.values()].map((l) => ({
      remittanceNb: l.remittanceNb,
      remittanceDate: l.remittanceDate,
      currency: l.currency,
    }));
    const created = await repos.remittances.remittanceIds(tx, target.tenantId, target.provider, keys, shop);
    for (const [i, k] of [...fresh.keys()].entries()) ids.set(k, created[i] as string);
  }
  // payreq's orders are its request uuids: anything else is no order of the hotel's.
  const orderOf = (l: JrbLine) => (isUuid(l.orderId) ? l.orderId.toLowerCase() : undefined);
  const orders = [...new Set(batch.map(orderOf).filter((o): o is string => o !== undefined))];
  const { byOrder: money, held } = await repos.remittances.remittableRows(tx, target.tenantId, orders);
  // Each line once per statement: a record the file repeats is the same operation.
  const seen = new Map<string, number>();
  const lines: NewRemittanceLine[] = [];
  const positions: number[] = [];
  for (const l of batch) {
    const remittanceId = ids.get(remittanceKey(l)) as string;
    const key = `${remittanceId}\n${l.key}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      positions.push(earlier);
      continue;
    }
    const order = orderOf(l);
    const match = matchLine(l, order ? money.get(order) : undefined, (id) => held.has(id));
    if ('ledgerId' in match) held.add(match.ledgerId);
    seen.set(key, lines.length);
    positions.push(lines.length);
    lines.push({
      remittanceId,
      key: lineKey(l.key),
      transactionId: l.transactionId,
      orderId: l.orderId,
      direction: l.direction,
      amount: l.amount,
      fee: l.fee,
      net: l.net,
      currency: l.currency,
      paymentDate: l.paymentDate,
      operationNumber: l.operationNumber,
      paymentMethod: l.paymentMethod,
      matchStatus: l.matchStatus,
      paymentRequestId: order && money.has(order) ? order : null,
      ledgerId: 'ledgerId' in match ? match.ledgerId : null,
      unmatchedReason: 'reason' in match ? match.reason : null,
      expectedAmount: 'reason' in match && match.expected !== undefined ? match.expected : null,
      sourceLine: l.line,
    });
  }
  const stored = await repos.remittances.storeLines(tx, target.tenantId, lines, counts);
  return positions.map((p) => stored[p] ?? false);
}
