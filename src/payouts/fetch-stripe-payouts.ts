import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/index.ts';
import { isUuid } from '../domain/index.ts';
import type { ProviderRegistry, StripePayout, StripePayoutLine, StripePayoutSource } from '../providers/index.ts';
import type { ImportResult } from './import-jrb.ts';
import { matchLine } from './payout-matching.ts';
import { type NewRemittanceLine, type RemittancesRepository, remittancesRepository } from './remittances-repository.ts';

/** The provider name a Stripe hotel's remittances are stored under. */
const STRIPE = 'stripe';

/** A hotel whose current account is not a Stripe account: it has no payouts to fetch. */
export class NotOnStripe extends Error {}

export interface FetchDeps {
  db: Database;
  providers: Pick<ProviderRegistry, 'stripePayouts'>;
}

/**
 * Days back the fetch looks when not told (`--since`): a month of missed runs, or a hotel's
 * first month on Stripe, is caught up. Looking back further costs little: the payouts come in
 * one list call per hundred, and those stored already are not read again.
 */
export const FETCH_DAYS_BACK = 30;

/** The default `since`: FETCH_DAYS_BACK days before `now`'s day (UTC). */
export function defaultFetchSince(now: Date): string {
  return new Date(now.getTime() - FETCH_DAYS_BACK * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Fetches the hotel's paid Stripe payouts expected in the bank on `since` (YYYY-MM-DD) or
 * after, and stores each one not stored yet as a remittance (its number the payout's id, its
 * date the payout's arrival date) with a line for each balance transaction it paid out, but
 * its own, matched to the ledger by the PaymentIntent or refund payreq recorded. A payout
 * stored already is not read again (Stripe's calls are the cost: one list of payouts, then one
 * list of a hundred lines a page for each new payout), so fetching twice stores nothing new.
 * Each payout in one transaction under the hotel's import lock: two fetches at once store it
 * once. Answers the counts of what it stored this time, as an import does.
 */
export async function fetchStripePayouts(deps: FetchDeps, tenantId: string, since: string): Promise<ImportResult> {
  const source = await deps.providers.stripePayouts?.(tenantId);
  if (!source) throw new NotOnStripe(`tenant ${tenantId} is not on Stripe (its account is another provider's)`);
  const repo = remittancesRepository(deps.db);
  const result: ImportResult = { remittances: 0, lines: 0, matched: 0, unmatched: 0 };
  // The list is read first, whole (a page per hundred payouts), so the stored ones are skipped in one query.
  const payouts: StripePayout[] = [];
  for await (const p of source.paidPayouts(since)) payouts.push(p);
  const stored = await repo.storedNumbers(
    deps.db,
    tenantId,
    STRIPE,
    payouts.map((p) => p.id),
  );
  // Oldest first: a fetch stopped half-way (a Stripe error) has stored the earlier ones.
  for (const payout of payouts.reverse()) {
    if (stored.has(payout.id)) continue;
    const counts = await storePayout(deps.db, source, tenantId, payout);
    if (!counts) continue;
    result.remittances++;
    result.lines += counts.matched + counts.unmatched;
    result.matched += counts.matched;
    result.unmatched += counts.unmatched;
  }
  await matchAgain(deps.db, tenantId, [...stored]);
  return result;
}

/**
 * The unmatched lines of payouts stored before, matched again from what is stored (no Stripe
 * call: a paid payout's lines never change), as importing a report again does: a line that
 * matched nothing because payreq's books were behind (an operation in doubt then, settled
 * since) is matched now. Not counted in what the fetch stored. Cost: one query when every
 * stored payout is matched; a sale payreq never made is looked at again by each run while its
 * payout is within the window (the ledger's index, a few rows).
 */
async function matchAgain(db: Database, tenantId: string, numbers: readonly string[]): Promise<void> {
  const repo = remittancesRepository(db);
  await db.transaction(async (tx) => {
    await repo.lockImports(tx, tenantId);
    const lines = await repo.unmatchedLines(tx, tenantId, STRIPE, numbers);
    if (lines.length === 0) return;
    const matched = await matchAll(repo, tx, tenantId, lines);
    const now = matched.filter((l) => l.ledgerId !== null);
    if (now.length === 0) return;
    await repo.storeLines(tx, tenantId, now);
    await repo.refreshTotals(tx, [...new Set(now.map((l) => l.remittanceId))]);
  });
}

/**
 * Lines matched to the hotel's Stripe ledger: each by the ledger row naming its transaction
 * (the order is that row's request), else by the request its source's metadata claims, then
 * checked by the pure rule. Each ledger row goes to one line.
 */
async function matchAll(
  repo: RemittancesRepository,
  tx: Queryable,
  tenantId: string,
  lines: readonly NewRemittanceLine[],
): Promise<NewRemittanceLine[]> {
  const txns = [...new Set(lines.map((l) => l.transactionId))];
  const claims = [...new Set(lines.map((l) => l.orderId).filter((o) => isUuid(o)))].map((o) => o.toLowerCase());
  const { byOrder, held, orderOf } = await repo.stripeRemittableRows(tx, tenantId, txns, claims);
  return lines.map((l) => {
    const claimed = isUuid(l.orderId) ? l.orderId.toLowerCase() : undefined;
    const order = orderOf.get(l.transactionId) ?? claimed;
    const match = matchLine(l, order ? byOrder.get(order) : undefined, (id) => held.has(id));
    if ('ledgerId' in match) held.add(match.ledgerId);
    return {
      ...l,
      orderId: order ?? l.orderId,
      paymentRequestId: order && byOrder.has(order) ? order : null,
      ledgerId: 'ledgerId' in match ? match.ledgerId : null,
      unmatchedReason: 'reason' in match ? match.reason : null,
      expectedAmount: 'reason' in match && match.expected !== undefined ? match.expected : null,
    };
  });
}

/** A line's key within its remittance: its balance transaction, digested as the importer's are. */
function lineKey(id: string): string {
  const h = createHash('md5').update(`stripe\n${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** One payout and its lines, stored and matched; undefined when another fetch stored it first. */
async function storePayout(
  db: Database,
  source: StripePayoutSource,
  tenantId: string,
  payout: StripePayout,
): Promise<{ matched: number; unmatched: number } | undefined> {
  // Read before the transaction: no database lock is held while Stripe answers.
  const listed = await source.payoutLines(payout.id);
  const repo = remittancesRepository(db);
  return db.transaction(
    async (tx) => {
      await repo.lockImports(tx, tenantId);
      if ((await repo.storedNumbers(tx, tenantId, STRIPE, [payout.id])).has(payout.id)) return undefined;
      const [remittanceId] = await repo.remittanceIds(
        tx,
        tenantId,
        STRIPE,
        [{ remittanceNb: payout.id, remittanceDate: payout.arrivalDate, currency: payout.currency }],
        null,
      );
      // Oldest first, as the source_line of a file: the list comes newest first.
      const unmatched: NewRemittanceLine[] = [...listed].reverse().map((l, i) => ({
        remittanceId: remittanceId as string,
        key: lineKey(l.id),
        transactionId: l.transactionId ?? l.id,
        orderId: claimOf(l) ?? '',
        direction: l.amount >= 0 ? 'debit' : 'credit',
        amount: Math.abs(l.amount),
        fee: l.fee,
        net: l.amount - l.fee,
        currency: l.currency,
        paymentDate: l.date,
        operationNumber: l.id,
        paymentMethod: l.paymentMethod,
        matchStatus: l.type,
        paymentRequestId: null,
        ledgerId: null,
        unmatchedReason: 'unknown_order',
        expectedAmount: null,
        sourceLine: i + 1,
      }));
      const lines = await matchAll(repo, tx, tenantId, unmatched);
      const matched = await repo.storeLines(tx, tenantId, lines);
      await repo.refreshTotals(tx, [remittanceId as string]);
      const n = matched.filter(Boolean).length;
      return { matched: n, unmatched: matched.length - n };
    },
    // A payout of thousands of lines is one write: not held to a request's bound.
    { unbounded: true },
  );
}

/** The request a line's source claims in its metadata, when it is a uuid (a claim, checked against the ledger). */
function claimOf(l: StripePayoutLine): string | undefined {
  return l.claimedOrder && isUuid(l.claimedOrder) ? l.claimedOrder.toLowerCase() : undefined;
}

/** What the daily `fetch_payouts` run did, over every Stripe hotel. */
export interface FetchAllResult extends ImportResult {
  since: string;
  /** Stripe hotels fetched, and those whose fetch failed (the others went on). */
  hotels: number;
  failed: number;
  /** Each failed hotel and why (at most 50), for the run history. */
  errors: { tenant_id: string; error: string }[];
}

/**
 * The daily job: every hotel whose current account is a Stripe account, one after the other
 * (Stripe's rate limits are per account, but payreq's database and its two cores are shared). A
 * hotel whose fetch fails (Stripe down, a revoked key) is counted and named; the others go on,
 * and the next run, looking back FETCH_DAYS_BACK days, catches it up.
 */
export async function fetchAllStripePayouts(
  deps: FetchDeps & { accounts: { stripeAccounts(): Promise<{ tenant_id: string }[]> } },
  since: string,
): Promise<FetchAllResult> {
  const result: FetchAllResult = {
    since,
    hotels: 0,
    failed: 0,
    remittances: 0,
    lines: 0,
    matched: 0,
    unmatched: 0,
    errors: [],
  };
  for (const { tenant_id: tenantId } of await deps.accounts.stripeAccounts()) {
    result.hotels++;
    try {
      const r = await fetchStripePayouts(deps, tenantId, since);
      result.remittances += r.remittances;
      result.lines += r.lines;
      result.matched += r.matched;
      result.unmatched += r.unmatched;
    } catch (err) {
      result.failed++;
      if (result.errors.length < 50) {
        result.errors.push({ tenant_id: tenantId, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return result;
}
