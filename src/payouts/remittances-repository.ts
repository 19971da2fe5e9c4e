import type { Database, Queryable } from '../db/index.ts';
import type { RemittableRow, RemittanceDirection, UnmatchedReason } from './payout-matching.ts';

/** What names a remittance within a hotel and provider: its number, its date and its currency. */
export interface RemittanceKey {
  remittanceNb: string;
  /** YYYY-MM-DD. */
  remittanceDate: string;
  currency: string;
}

/** A line to store, its match decided; amounts in minor units (fee and net signed, see 0060). */
export interface NewRemittanceLine {
  remittanceId: string;
  key: string;
  transactionId: string;
  orderId: string;
  direction: RemittanceDirection;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  /** YYYY-MM-DD. */
  paymentDate: string | null;
  operationNumber: string | null;
  paymentMethod: string | null;
  matchStatus: string | null;
  paymentRequestId: string | null;
  ledgerId: string | null;
  unmatchedReason: UnmatchedReason | null;
  expectedAmount: number | null;
  sourceLine: number;
}

/** A remittance with its totals (minor units; gross and net signed, as money to the hotel). */
export interface RemittanceRow {
  id: string;
  tenant_id: string;
  provider: string;
  remittance_nb: string;
  /** YYYY-MM-DD. */
  remittance_date: string;
  currency: string;
  gross: number;
  fees: number;
  net: number;
  line_count: number;
  matched_count: number;
  shop: string | null;
  imported_at: Date;
  updated_at: Date;
}

/** A stored line, with the reference of the request it names (null when none or deleted). */
export interface RemittanceLineRow {
  id: string;
  remittance_id: string;
  transaction_id: string;
  order_id: string;
  direction: RemittanceDirection;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  payment_date: string | null;
  payment_method: string | null;
  match_status: string | null;
  payment_request_id: string | null;
  reference: string | null;
  ledger_id: string | null;
  ledger_kind: string | null;
  unmatched_reason: UnmatchedReason | null;
  expected_amount: number | null;
  source_line: number;
}

/** Gross, fees and net a month and currency, over a hotel's remittances (minor units). */
export interface MonthlyFeesRow {
  /** YYYY-MM. */
  month: string;
  currency: string;
  remittances: number;
  gross: number;
  fees: number;
  net: number;
}

/** Money payreq moved that no imported remittance holds (minor units). */
export interface NotPaidOutRow {
  id: string;
  payment_request_id: string;
  reference: string | null;
  kind: 'payment' | 'capture' | 'refund';
  amount: number;
  currency: string;
  provider: string;
  created_at: Date;
}

/** One line of the settlements export, with its remittance. */
export interface PayoutExportRow extends RemittanceLineRow {
  remittance_nb: string;
  remittance_date: string;
  provider: string;
  tenant_name: string;
}

const REMITTANCE_COLUMNS = `r.id::text, r.tenant_id, r.provider, r.remittance_nb, r.remittance_date::text AS remittance_date,
  r.currency, r.gross::float8 AS gross, r.fees::float8 AS fees, r.net::float8 AS net, r.line_count, r.matched_count,
  r.shop, r.imported_at, r.updated_at`;

const LINE_COLUMNS = `l.id::text, l.remittance_id::text, l.transaction_id, l.order_id, l.direction, l.amount::float8 AS amount,
  l.fee::float8 AS fee, l.net::float8 AS net, l.currency, l.payment_date::text AS payment_date, l.payment_method,
  l.match_status, l.payment_request_id, p.reference, l.ledger_id::text AS ledger_id, m.kind AS ledger_kind,
  l.unmatched_reason, l.expected_amount::float8 AS expected_amount, l.source_line`;

/** The request and the ledger row of a line, when it names them (the request of this hotel only). */
const LINE_JOINS = `LEFT JOIN payment_requests p ON p.id = l.payment_request_id AND p.tenant_id = l.tenant_id
  LEFT JOIN money_ledger m ON m.id = l.ledger_id`;

/**
 * Money that moved and may be remitted: a guest's payment, a capture, a refund, succeeded. A
 * refund that lowered a payment before the bank had it shares the payment's transaction number:
 * it is held when the payment is.
 */
const REMITTABLE = `m.state = 'succeeded' AND m.kind IN ('payment', 'capture', 'refund')`;
const HELD = (m: string) => `(EXISTS (SELECT 1 FROM remittance_lines h WHERE h.ledger_id = ${m}.id)
  OR (${m}.kind = 'refund' AND ${m}.legacy_trans_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM money_ledger d JOIN remittance_lines h ON h.ledger_id = d.id
         WHERE d.payment_request_id = ${m}.payment_request_id AND d.legacy_trans_id = ${m}.legacy_trans_id
           AND d.kind IN ('payment', 'capture'))))`;

/**
 * Remittances and their lines (0060_remittances.sql). An import writes inside one transaction,
 * holding its hotel's import lock: its lines are matched against what earlier batches and earlier
 * imports stored, so two imports of one hotel never give the same money to two lines.
 */
export function remittancesRepository(db: Database) {
  return {
    /** Holds the hotel's import lock until the transaction ends: one import of a hotel at a time. */
    async lockImports(tx: Queryable, tenantId: string): Promise<void> {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('remittance-import:' || $1::text))", [tenantId]);
    },

    /** The remittances' ids, in the order of `keys`; those not stored yet are created (empty). */
    async remittanceIds(
      tx: Queryable,
      tenantId: string,
      provider: string,
      keys: readonly RemittanceKey[],
      shop: string | null,
    ): Promise<string[]> {
      if (keys.length === 0) return [];
      const json = JSON.stringify(keys.map((k) => ({ nb: k.remittanceNb, d: k.remittanceDate, c: k.currency })));
      const r = await tx.query<{ nb: string; d: string; c: string; id: string }>(
        `WITH k AS (SELECT * FROM json_to_recordset($3::json) AS k(nb text, d date, c text)),
         ins AS (
           INSERT INTO remittances (tenant_id, provider, remittance_nb, remittance_date, currency, shop)
           SELECT $1, $2, k.nb, k.d, k.c, $4 FROM k
           ON CONFLICT (tenant_id, provider, remittance_nb, remittance_date, currency)
             DO UPDATE SET shop = COALESCE(EXCLUDED.shop, remittances.shop)
           RETURNING id, remittance_nb, remittance_date, currency
         )
         SELECT remittance_nb AS nb, remittance_date::text AS d, currency AS c, id::text AS id FROM ins`,
        [tenantId, provider, json, shop],
      );
      const byKey = new Map(r.rows.map((row) => [`${row.nb}\n${row.d}\n${row.c}`, row.id]));
      return keys.map((k) => {
        const id = byKey.get(`${k.remittanceNb}\n${k.remittanceDate}\n${k.currency}`);
        if (id === undefined) throw new Error(`remittance ${k.remittanceNb} of ${k.remittanceDate} not stored`);
        return id;
      });
    },

    /**
     * The remittable money of each of the hotel's orders among `orderIds` (request uuids), by
     * order: one index range of the ledger per order. An order the hotel has none of is absent.
     * `held`: the rows a stored line pays out already.
     */
    async remittableRows(
      tx: Queryable,
      tenantId: string,
      orderIds: readonly string[],
    ): Promise<{ byOrder: Map<string, RemittableRow[]>; held: Set<string> }> {
      const byOrder = new Map<string, RemittableRow[]>();
      const held = new Set<string>();
      if (orderIds.length === 0) return { byOrder, held };
      const r = await tx.query<{
        order_id: string;
        id: string;
        kind: RemittableRow['kind'];
        amount: number;
        currency: string;
        legacy_trans_id: string | null;
        held: boolean;
      }>(
        // One range of money_ledger_request per order, whatever the statistics say: a plan that
        // also ranged over the hotel's rows (BitmapAnd with the tenant's index) read the whole
        // ledger of the hotel for each order, a quadratic import on a ledger not analyzed yet.
        // OFFSET 0 keeps the hotel's condition out of the subquery, so the planner cannot.
        `SELECT o.id AS order_id, m.id::text AS id, m.kind, m.amount, m.currency, m.legacy_trans_id,
                EXISTS (SELECT 1 FROM remittance_lines h WHERE h.ledger_id = m.id) AS held
           FROM unnest($2::uuid[]) AS o(id)
           CROSS JOIN LATERAL (SELECT * FROM money_ledger x WHERE x.payment_request_id = o.id ORDER BY x.id OFFSET 0) m
          WHERE m.tenant_id = $1 AND ${REMITTABLE}
          ORDER BY o.id, m.id`,
        [tenantId, orderIds],
      );
      for (const row of r.rows) {
        const list = byOrder.get(row.order_id) ?? [];
        list.push({
          id: row.id,
          kind: row.kind,
          amount: row.amount,
          currency: row.currency,
          transactionNumber: row.legacy_trans_id,
        });
        byOrder.set(row.order_id, list);
        if (row.held) held.add(row.id);
      }
      return { byOrder, held };
    },

    /** Which of `numbers` the hotel has a remittance of from `provider` already. */
    async storedNumbers(
      q: Queryable,
      tenantId: string,
      provider: string,
      numbers: readonly string[],
    ): Promise<Set<string>> {
      if (numbers.length === 0) return new Set();
      const r = await q.query<{ nb: string }>(
        `SELECT DISTINCT remittance_nb AS nb FROM remittances
          WHERE tenant_id = $1 AND provider = $2 AND remittance_nb = ANY($3::text[])`,
        [tenantId, provider, numbers],
      );
      return new Set(r.rows.map((row) => row.nb));
    },

    /**
     * The unmatched lines of the hotel's remittances from `provider` numbered `numbers`, as
     * stored, to be matched again (the key as stored: the line it names is the same line).
     */
    async unmatchedLines(
      tx: Queryable,
      tenantId: string,
      provider: string,
      numbers: readonly string[],
    ): Promise<NewRemittanceLine[]> {
      if (numbers.length === 0) return [];
      const r = await tx.query<{
        rid: string;
        k: string;
        txn: string;
        o: string;
        dir: RemittanceDirection;
        a: number;
        f: number;
        n: number;
        c: string;
        pd: string | null;
        op: string | null;
        pm: string | null;
        ms: string | null;
        why: UnmatchedReason;
        exp: number | null;
        src: number;
      }>(
        `SELECT l.remittance_id::text AS rid, l.line_key::text AS k, l.transaction_id AS txn, l.order_id AS o,
                l.direction AS dir, l.amount::float8 AS a, l.fee::float8 AS f, l.net::float8 AS n, l.currency AS c,
                l.payment_date::text AS pd, l.operation_number AS op, l.payment_method AS pm, l.match_status AS ms,
                l.unmatched_reason AS why, l.expected_amount::float8 AS exp, l.source_line AS src
           FROM remittances r JOIN remittance_lines l ON l.remittance_id = r.id
          WHERE r.tenant_id = $1 AND r.provider = $2 AND r.remittance_nb = ANY($3::text[])
            AND r.matched_count < r.line_count AND l.ledger_id IS NULL
          ORDER BY l.id`,
        [tenantId, provider, numbers],
      );
      return r.rows.map((row) => ({
        remittanceId: row.rid,
        key: row.k,
        transactionId: row.txn,
        orderId: row.o,
        direction: row.dir,
        amount: row.a,
        fee: row.f,
        net: row.n,
        currency: row.c,
        paymentDate: row.pd,
        operationNumber: row.op,
        paymentMethod: row.pm,
        matchStatus: row.ms,
        paymentRequestId: null,
        ledgerId: null,
        unmatchedReason: row.why,
        expectedAmount: row.exp,
        sourceLine: row.src,
      }));
    },

    /**
     * The remittable Stripe money of the hotel's orders that a payout's lines name, by order:
     * the orders of the ledger rows whose Stripe transaction (a PaymentIntent, a refund) is one
     * of `transactionIds` (the partial index of 0110_stripe_accounts.sql), and the orders of
     * `claimedOrders` (request uuids a source's metadata names). Each row's transaction number
     * is its Stripe id. `orderOf`: the order each of those transactions is the hotel's money of.
     */
    async stripeRemittableRows(
      tx: Queryable,
      tenantId: string,
      transactionIds: readonly string[],
      claimedOrders: readonly string[],
    ): Promise<{ byOrder: Map<string, RemittableRow[]>; held: Set<string>; orderOf: Map<string, string> }> {
      const byOrder = new Map<string, RemittableRow[]>();
      const held = new Set<string>();
      const orderOf = new Map<string, string>();
      if (transactionIds.length === 0 && claimedOrders.length === 0) return { byOrder, held, orderOf };
      const r = await tx.query<{
        order_id: string;
        id: string;
        kind: RemittableRow['kind'];
        amount: number;
        currency: string;
        txn: string | null;
        held: boolean;
      }>(
        `WITH o AS (
           SELECT DISTINCT x.payment_request_id AS id FROM money_ledger x
            WHERE x.provider = 'stripe' AND x.provider_transaction_id = ANY($2::text[]) AND x.tenant_id = $1
           UNION SELECT unnest($3::uuid[])
         )
         SELECT o.id::text AS order_id, m.id::text AS id, m.kind, m.amount, m.currency, m.provider_transaction_id AS txn,
                EXISTS (SELECT 1 FROM remittance_lines h WHERE h.ledger_id = m.id) AS held
           FROM o CROSS JOIN LATERAL (SELECT * FROM money_ledger x WHERE x.payment_request_id = o.id ORDER BY x.id OFFSET 0) m
          WHERE m.tenant_id = $1 AND m.provider = 'stripe' AND ${REMITTABLE}
          ORDER BY o.id, m.id`,
        [tenantId, transactionIds, claimedOrders],
      );
      const wanted = new Set(transactionIds);
      for (const row of r.rows) {
        const list = byOrder.get(row.order_id) ?? [];
        list.push({
          id: row.id,
          kind: row.kind,
          amount: row.amount,
          currency: row.currency,
          transactionNumber: row.txn,
        });
        byOrder.set(row.order_id, list);
        if (row.held) held.add(row.id);
        if (row.txn !== null && wanted.has(row.txn)) orderOf.set(row.txn, row.order_id);
      }
      return { byOrder, held, orderOf };
    },

    /**
     * Stores the lines in one statement (each key once: the caller drops a repeat). A line stored
     * already (the same key in the same remittance) keeps what it holds, unless it matched nothing
     * and now does (the books caught up: an operation in doubt at the first import, settled
     * since). Answers, for each line in order, whether the stored line is matched.
     */
    /**
     * Stores lines (a line already stored is kept, and matched if it matched nothing then and does
     * now); answers whether each is matched. `counts.changed`, when given, grows by the lines this
     * call stored or matched for the first time: 0 for lines all imported before.
     */
    async storeLines(
      tx: Queryable,
      tenantId: string,
      lines: readonly NewRemittanceLine[],
      counts?: { changed: number },
    ): Promise<boolean[]> {
      if (lines.length === 0) return [];
      const json = JSON.stringify(
        lines.map((l) => ({
          rid: l.remittanceId,
          k: l.key,
          txn: l.transactionId,
          o: l.orderId,
          dir: l.direction,
          a: l.amount,
          f: l.fee,
          n: l.net,
          c: l.currency,
          pd: l.paymentDate,
          op: l.operationNumber,
          pm: l.paymentMethod,
          ms: l.matchStatus,
          pr: l.paymentRequestId,
          lid: l.ledgerId,
          why: l.unmatchedReason,
          exp: l.expectedAmount,
          src: l.sourceLine,
        })),
      );
      const r = await tx.query<{ rid: string; k: string; matched: boolean; changed: boolean }>(
        `WITH l AS (
           SELECT * FROM json_to_recordset($2::json) AS l(rid bigint, k uuid, txn text, o text, dir text, a bigint,
             f bigint, n bigint, c text, pd date, op text, pm text, ms text, pr uuid, lid bigint, why text, exp bigint,
             src int)
         ), ins AS (
           INSERT INTO remittance_lines AS s (remittance_id, tenant_id, line_key, transaction_id, order_id, direction,
             amount, fee, net, currency, payment_date, operation_number, payment_method, match_status,
             payment_request_id, ledger_id, unmatched_reason, expected_amount, source_line, matched_at)
           SELECT rid, $1, k, txn, o, dir, a, f, n, c, pd, op, pm, ms, pr, lid, why, exp, src,
                  CASE WHEN lid IS NOT NULL THEN now() END
             FROM l
           ON CONFLICT (remittance_id, line_key) DO UPDATE
             SET payment_request_id = EXCLUDED.payment_request_id, ledger_id = EXCLUDED.ledger_id,
                 unmatched_reason = NULL, expected_amount = NULL, matched_at = now()
             WHERE s.ledger_id IS NULL AND EXCLUDED.ledger_id IS NOT NULL
           RETURNING remittance_id, line_key, ledger_id IS NOT NULL AS matched
         )
         SELECT l.rid::text AS rid, l.k, COALESCE(ins.matched, s.ledger_id IS NOT NULL) AS matched,
                ins.line_key IS NOT NULL AS changed
           FROM l LEFT JOIN ins ON ins.remittance_id = l.rid AND ins.line_key = l.k
           LEFT JOIN LATERAL (SELECT s.ledger_id FROM remittance_lines s
                               WHERE s.remittance_id = l.rid AND s.line_key = l.k LIMIT 1) s ON ins.line_key IS NULL`,
        [tenantId, json],
      );
      if (counts) counts.changed += r.rows.filter((row) => row.changed).length;
      const byKey = new Map(r.rows.map((row) => [`${row.rid}\n${row.k}`, row.matched]));
      return lines.map((l) => byKey.get(`${l.remittanceId}\n${l.key}`) ?? false);
    },

    /** Each remittance's totals and counts, again from its lines. */
    async refreshTotals(tx: Queryable, remittanceIds: readonly string[]): Promise<void> {
      if (remittanceIds.length === 0) return;
      await tx.query(
        `UPDATE remittances r
            SET gross = t.gross, fees = t.fees, net = t.net, line_count = t.lines, matched_count = t.matched,
                first_payment_date = t.first_payment, updated_at = now()
           FROM (SELECT l.remittance_id,
                        sum(CASE WHEN l.direction = 'debit' THEN l.amount ELSE -l.amount END)::bigint AS gross,
                        sum(l.fee)::bigint AS fees, sum(l.net)::bigint AS net, count(*)::int AS lines,
                        count(l.ledger_id)::int AS matched,
                        min(COALESCE(l.payment_date, x.remittance_date)) AS first_payment
                   FROM remittance_lines l JOIN remittances x ON x.id = l.remittance_id
                  WHERE l.remittance_id = ANY($1::bigint[])
                  GROUP BY l.remittance_id) t
          WHERE r.id = t.remittance_id`,
        [remittanceIds],
      );
    },

    /** A hotel's remittances, newest first; `from` and `to` (YYYY-MM-DD) bound their date, both included. */
    async list(tenantId: string, range: { from?: string; to?: string; limit?: number } = {}): Promise<RemittanceRow[]> {
      const r = await db.query<RemittanceRow>(
        `SELECT ${REMITTANCE_COLUMNS} FROM remittances r
          WHERE r.tenant_id = $1 AND ($2::date IS NULL OR r.remittance_date >= $2::date)
            AND ($3::date IS NULL OR r.remittance_date <= $3::date)
          ORDER BY r.remittance_date DESC, r.id DESC
          LIMIT $4`,
        [tenantId, range.from ?? null, range.to ?? null, range.limit ?? 10_000],
      );
      return r.rows;
    },

    /** One of the hotel's remittances; undefined for another hotel's. */
    async find(tenantId: string, id: string): Promise<RemittanceRow | undefined> {
      const r = await db.query<RemittanceRow>(
        `SELECT ${REMITTANCE_COLUMNS} FROM remittances r WHERE r.id = $1 AND r.tenant_id = $2`,
        [id, tenantId],
      );
      return r.rows[0];
    },

    /** A remittance by its id, whichever hotel's (the caller checks the user may see that hotel). */
    async byId(id: string): Promise<RemittanceRow | undefined> {
      const r = await db.query<RemittanceRow>(`SELECT ${REMITTANCE_COLUMNS} FROM remittances r WHERE r.id = $1`, [id]);
      return r.rows[0];
    },

    /** A remittance's lines, unmatched first, then as the report listed them. */
    async lines(remittanceId: string, limit = 1000): Promise<RemittanceLineRow[]> {
      const r = await db.query<RemittanceLineRow>(
        `SELECT ${LINE_COLUMNS}
           FROM remittance_lines l ${LINE_JOINS}
          WHERE l.remittance_id = $1
          ORDER BY (l.ledger_id IS NOT NULL), l.id
          LIMIT $2`,
        [remittanceId, limit],
      );
      return r.rows;
    },

    /** The lines that pay out a request's money, for its page. */
    async forRequest(
      paymentRequestId: string,
    ): Promise<(RemittanceLineRow & { remittance_nb: string; remittance_date: string })[]> {
      const r = await db.query<RemittanceLineRow & { remittance_nb: string; remittance_date: string }>(
        `SELECT ${LINE_COLUMNS}, x.remittance_nb, x.remittance_date::text AS remittance_date
           FROM remittance_lines l JOIN remittances x ON x.id = l.remittance_id ${LINE_JOINS}
          WHERE l.payment_request_id = $1
          ORDER BY x.remittance_date, l.id`,
        [paymentRequestId],
      );
      return r.rows;
    },

    /** Gross, fees and net a month and currency, newest month first. */
    async feesByMonth(tenantId: string, months = 24): Promise<MonthlyFeesRow[]> {
      const r = await db.query<MonthlyFeesRow>(
        `SELECT to_char(remittance_date, 'YYYY-MM') AS month, currency, count(*)::int AS remittances,
                sum(gross)::float8 AS gross, sum(fees)::float8 AS fees, sum(net)::float8 AS net
           FROM remittances WHERE tenant_id = $1
          GROUP BY 1, 2 ORDER BY 1 DESC, 2
          LIMIT $2`,
        [tenantId, months * 3],
      );
      return r.rows;
    },

    /**
     * Money the hotel's ledger moved before `before` that no imported remittance holds, oldest
     * first, from the day of the earliest payment its remittances pay out (before the first
     * import, nothing can be said). `count`: how many in all, up to `cap`.
     */
    async notPaidOut(
      tenantId: string,
      before: Date,
      limit: number,
      cap = 10_000,
    ): Promise<{ rows: NotPaidOutRow[]; count: number; since: string | null }> {
      const start = await db.query<{ since: string | null }>(
        'SELECT min(first_payment_date)::text AS since FROM remittances WHERE tenant_id = $1',
        [tenantId],
      );
      const since = start.rows[0]?.since ?? null;
      if (since === null) return { rows: [], count: 0, since };
      const r = await db.query<NotPaidOutRow & { total: number }>(
        `WITH due AS (
           SELECT m.id, m.payment_request_id, m.kind, m.amount, m.currency, m.provider, m.created_at
             FROM money_ledger m JOIN tenants t ON t.id = m.tenant_id
            WHERE m.tenant_id = $1 AND ${REMITTABLE}
              AND m.created_at >= ($2::date)::timestamp AT TIME ZONE t.timezone AND m.created_at < $3
              AND NOT ${HELD('m')}
            ORDER BY m.created_at, m.id
            LIMIT $5
         )
         SELECT d.id::text AS id, d.payment_request_id, p.reference, d.kind, d.amount, d.currency, d.provider,
                d.created_at, (SELECT count(*) FROM due)::int AS total
           FROM due d LEFT JOIN payment_requests p ON p.id = d.payment_request_id
          ORDER BY d.created_at, d.id
          LIMIT $4`,
        [tenantId, since, before, limit, cap],
        { planWithValues: true },
      );
      const count = r.rows[0]?.total ?? 0;
      return { rows: r.rows.map(({ total: _t, ...row }) => row), count, since };
    },

    /** The first and last dates of the hotel's remittances from `from` to `to` (both included); none: undefined. */
    async dateRange(tenantId: string, from: string, to: string): Promise<{ first: string; last: string } | undefined> {
      const r = await db.query<{ first: string | null; last: string | null }>(
        `SELECT min(remittance_date)::text AS first, max(remittance_date)::text AS last
           FROM remittances WHERE tenant_id = $1 AND remittance_date BETWEEN $2::date AND $3::date`,
        [tenantId, from, to],
      );
      const row = r.rows[0];
      return row?.first && row.last ? { first: row.first, last: row.last } : undefined;
    },

    /**
     * Lines of the hotel's remittances dated `from` to `to` (YYYY-MM-DD, both included), by
     * remittance date, then remittance and line: a page at a time, after the last one read.
     */
    async exportLines(
      tenantId: string,
      from: string,
      to: string,
      after: { date: string; remittance: string; line: string } | undefined,
      limit: number,
    ): Promise<PayoutExportRow[]> {
      const r = await db.query<PayoutExportRow>(
        `SELECT ${LINE_COLUMNS}, x.remittance_nb, x.remittance_date::text AS remittance_date, x.provider,
                tn.name AS tenant_name
           FROM remittances x
           JOIN tenants tn ON tn.id = x.tenant_id
           JOIN remittance_lines l ON l.remittance_id = x.id ${LINE_JOINS}
          WHERE x.tenant_id = $1 AND x.remittance_date BETWEEN $2::date AND $3::date
            AND ($4::date IS NULL OR (x.remittance_date, x.id, l.id) > ($4::date, $5::bigint, $6::bigint))
          ORDER BY x.remittance_date, x.id, l.id
          LIMIT $7`,
        [tenantId, from, to, after?.date ?? null, after?.remittance ?? null, after?.line ?? null, limit],
        { planWithValues: true },
      );
      return r.rows;
    },
  };
}
export type RemittancesRepository = ReturnType<typeof remittancesRepository>;
