import { randomUUID } from 'node:crypto';
import type { BooksProblem, BooksVerdictKind, Status } from '../domain/index.ts';
import type { Database, Queryable } from './database.ts';

/** A books check run this process holds (0027_books_check.sql). */
export interface HeldBooksRun {
  id: string;
  lease: string;
  since: Date;
  until: Date;
  /** Taken over from a run that stopped before its end (its checked orders stand). */
  resumed: boolean;
  /** Orders listed when the run opened. */
  orders: number;
}

/** What the check found for one order, kept with its verdict (minor units). */
export interface BooksCheckDetail {
  payment_request_id: string;
  tenant_id: string | null;
  reference: string | null;
  currency: string;
  status: Status | null;
  provider_net: number | null;
  payreq_net: number;
  open_holds: number;
  in_doubt_rows: number;
  problems: BooksProblem[];
}

/** payreq's side of one order, read in one statement. */
export interface OrderFacts {
  payment_request_id: string;
  tenant_id: string;
  reference: string | null;
  status: Status | null;
  currency: string;
  amount_captured: number;
  amount_refunded: number;
  /** The request's amount and its own transaction at the provider (null once deleted). */
  amount: number | null;
  provider_transaction_id: string | null;
  /** Holds a renewal replaced that no release has freed yet (their transactions). */
  replaced_holds: string[];
  /** Ledger rows requested or in doubt. */
  unsettled: number;
  /** Every account the order's ledger rows went to (a switch of account splits an order). */
  accounts: { provider: string; provider_account: number | null }[];
  /** Changes whenever the request or its ledger changes: two equal marks saw the same books. */
  mark: string;
}

export interface BooksIncidentRow {
  id: string;
  payment_request_id: string;
  tenant_id: string;
  tenant_name: string | null;
  reference: string | null;
  currency: string;
  problems: BooksProblem[];
  provider_net: number;
  payreq_net: number;
  open_holds: number;
  status: Status | null;
  opened_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
}

/** A money operation whose outcome is unknown, for the Books page. */
export interface InDoubtOperationRow {
  id: string;
  payment_request_id: string;
  tenant_id: string;
  tenant_name: string | null;
  reference: string | null;
  kind: string;
  amount: number;
  currency: string;
  state: 'requested' | 'in_doubt';
  incident: string | null;
  error: string | null;
  /** The transaction it acted on, and what the provider's answer named (if it named one). */
  provider_transaction_id: string | null;
  answer_transaction_id: string | null;
  provider_status: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Money that arrived where it should not and has not gone back yet. */
export interface MisplacedMoneyRow {
  id: string;
  payment_request_id: string;
  tenant_id: string;
  tenant_name: string | null;
  reference: string | null;
  kind: string;
  amount: number;
  currency: string;
  incident: string;
  created_at: Date;
}

/** The last finished check of a scope, for the Books page. */
export interface BooksRunSummary {
  scope: string;
  since: Date;
  finished_at: Date;
  orders: number;
  agree: number;
  disagree: number;
  in_doubt: number;
}

const INCIDENT_COLUMNS = `i.id::text, i.payment_request_id::text, i.tenant_id::text, t.name AS tenant_name, i.reference,
  i.currency, i.problems, i.provider_net::int AS provider_net, i.payreq_net::int AS payreq_net, i.open_holds, i.status,
  i.opened_at, i.last_seen_at, i.resolved_at`;

/** Books disagreements still open (the metric payreq_books_disagreements reads it at scrape time). */
export async function countOpenBooksIncidents(q: Queryable): Promise<number> {
  const present = await q.query<{ present: boolean }>("SELECT to_regclass('books_incidents') IS NOT NULL AS present");
  if (!present.rows[0]?.present) return 0;
  const r = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM books_incidents WHERE resolved_at IS NULL');
  return r.rows[0]?.n ?? 0;
}

/**
 * An incident the provider reported itself (its hold lapsed, a dispute): opened on the
 * request, or added to its open one, so the Books and Today pages and the daily digest show
 * it. `payreqNet`: what payreq counts as kept, for the page's columns.
 */
export async function openProviderIncident(
  q: Queryable,
  i: {
    paymentRequestId: string;
    tenantId: string;
    reference: string | null;
    currency: string;
    problem: BooksProblem;
    payreqNet: number;
    status: Status | null;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO books_incidents (payment_request_id, tenant_id, reference, currency, problems, provider_net,
       payreq_net, open_holds, status)
     VALUES ($1, $2, $3, $4, ARRAY[$5]::text[], $6, $6, 0, $7)
     ON CONFLICT (payment_request_id) WHERE resolved_at IS NULL DO UPDATE
       SET problems = ARRAY(SELECT DISTINCT unnest(books_incidents.problems || EXCLUDED.problems)),
           status = EXCLUDED.status, last_seen_at = now()`,
    [i.paymentRequestId, i.tenantId, i.reference, i.currency, i.problem, i.payreqNet, i.status],
  );
}

/**
 * The SQL of the books check (0027_books_check.sql): its runs and their orders, the incidents
 * it opens and resolves, and what the Books page lists.
 */
export function booksRepository(db: Database) {
  return {
    /**
     * The run of `scope` to carry on, held by this process: the unfinished one over the same
     * window once no live process holds it (resumed), else a new one over [since, now] listing
     * every order whose ledger moved in it, and every order with an open incident of the scope
     * (so an incident is resolved once the books agree again, whatever moved them). An
     * unfinished run over another window is dropped. `busy`: a live process holds the scope's run.
     */
    async openRun(p: {
      scope: string;
      tenantId: string | undefined;
      since: Date;
      leaseSeconds: number;
    }): Promise<HeldBooksRun | { busy: { started_at: Date; leased_until: Date } }> {
      const lease = randomUUID();
      return db.transaction(async (tx) => {
        const current = await tx.query<{
          id: string;
          since: Date;
          started_at: Date;
          leased_until: Date;
          live: boolean;
        }>(
          `SELECT id::text, since, started_at, leased_until, leased_until > now() AS live
             FROM books_check_runs WHERE scope = $1 AND finished_at IS NULL FOR UPDATE`,
          [p.scope],
        );
        const unfinished = current.rows[0];
        if (unfinished?.live)
          return { busy: { started_at: unfinished.started_at, leased_until: unfinished.leased_until } };
        if (unfinished && unfinished.since.getTime() === p.since.getTime()) {
          const taken = await tx.query<{ since: Date; until: Date; orders: number }>(
            `UPDATE books_check_runs SET lease = $2, leased_until = now() + make_interval(secs => $3::int)
              WHERE id = $1
             RETURNING since, until, (SELECT count(*)::int FROM books_check_orders WHERE run_id = $1) AS orders`,
            [unfinished.id, lease, p.leaseSeconds],
          );
          const row = taken.rows[0] as { since: Date; until: Date; orders: number };
          return { id: unfinished.id, lease, resumed: true, ...row };
        }
        if (unfinished) await tx.query('DELETE FROM books_check_runs WHERE id = $1', [unfinished.id]);
        const id = randomUUID();
        // Of two processes opening the scope's run at once, the second waits on the first's
        // row, then inserts nothing: busy.
        const opened = await tx.query<{ since: Date; until: Date; leased_until: Date; started_at: Date }>(
          `INSERT INTO books_check_runs (id, scope, tenant_id, since, until, lease, leased_until)
           VALUES ($1, $2, $3, $4, now(), $5, now() + make_interval(secs => $6::int))
           ON CONFLICT (scope) WHERE finished_at IS NULL DO NOTHING
           RETURNING since, until, leased_until, started_at`,
          [id, p.scope, p.tenantId ?? null, p.since, lease, p.leaseSeconds],
        );
        const run = opened.rows[0];
        if (!run) {
          const r = await tx.query<{ started_at: Date; leased_until: Date }>(
            'SELECT started_at, leased_until FROM books_check_runs WHERE scope = $1 AND finished_at IS NULL',
            [p.scope],
          );
          return { busy: r.rows[0] ?? { started_at: new Date(), leased_until: new Date() } };
        }
        // The bounds as the run row holds them (a JS Date would drop microseconds); a range of
        // the ledger's (updated_at, payment_request_id) index. `until` included: a clock of
        // millisecond steps (PGlite's) gives a row written just before the same instant.
        const listed = await tx.query(
          `INSERT INTO books_check_orders (run_id, payment_request_id)
           SELECT r.id, l.payment_request_id FROM money_ledger l, books_check_runs r
            WHERE r.id = $1 AND l.updated_at >= r.since AND l.updated_at <= r.until
              AND (r.tenant_id IS NULL OR l.tenant_id = r.tenant_id)
           UNION
           SELECT r.id, i.payment_request_id FROM books_incidents i, books_check_runs r
            WHERE r.id = $1 AND i.resolved_at IS NULL AND (r.tenant_id IS NULL OR i.tenant_id = r.tenant_id)`,
          [id],
        );
        return { id, lease, resumed: false, since: run.since, until: run.until, orders: listed.rowCount ?? 0 };
      });
    },

    /** The next `size` orders of the run not checked yet, after `after`, in id order. */
    async uncheckedOrders(runId: string, after: string | undefined, size: number): Promise<string[]> {
      const r = await db.query<{ id: string }>(
        `SELECT payment_request_id::text AS id FROM books_check_orders
          WHERE run_id = $1 AND verdict IS NULL AND ($2::uuid IS NULL OR payment_request_id > $2::uuid)
          ORDER BY payment_request_id LIMIT $3`,
        [runId, after ?? null, size],
      );
      return r.rows.map((row) => row.id);
    },

    /** payreq's side of one order; undefined for an id the ledger does not know. */
    async orderFacts(id: string): Promise<OrderFacts | undefined> {
      const r = await db.query<OrderFacts>(
        `SELECT l.payment_request_id::text, l.tenant_id::text, p.reference, p.status,
                COALESCE(p.currency, l.currency) AS currency,
                COALESCE(p.amount_captured, 0) AS amount_captured, COALESCE(p.amount_refunded, 0) AS amount_refunded,
                p.amount, p.provider_transaction_id, l.unsettled, l.accounts,
                ARRAY(SELECT old.provider_transaction_id FROM money_ledger old
                       WHERE old.payment_request_id = l.payment_request_id AND old.kind = 'hold'
                         AND old.state = 'succeeded' AND old.provider_transaction_id IS NOT NULL
                         AND EXISTS (SELECT 1 FROM money_ledger n WHERE n.parent_id = old.id
                                        AND n.kind = 'hold' AND n.state = 'succeeded')
                         AND NOT EXISTS (SELECT 1 FROM money_ledger x WHERE x.parent_id = old.id
                                            AND x.kind = 'release' AND x.state = 'succeeded')) AS replaced_holds,
                concat_ws('/', l.n, l.last_change, p.status, p.amount_captured, p.amount_refunded,
                          p.provider_transaction_id) AS mark
           FROM (SELECT payment_request_id,
                        (array_agg(tenant_id ORDER BY id DESC))[1] AS tenant_id,
                        (array_agg(currency ORDER BY id DESC))[1] AS currency,
                        json_agg(DISTINCT jsonb_build_object('provider', provider,
                                                             'provider_account', provider_account)) AS accounts,
                        count(*) FILTER (WHERE state IN ('requested', 'in_doubt'))::int AS unsettled,
                        count(*)::int AS n, max(updated_at)::text AS last_change
                   FROM money_ledger WHERE payment_request_id = $1 GROUP BY payment_request_id) l
           LEFT JOIN payment_requests p ON p.id = l.payment_request_id`,
        [id],
      );
      return r.rows[0];
    },

    /**
     * Records one order's verdict, renewing the run's lease, in one transaction: a
     * disagreement opens the request's incident (or refreshes the open one), an agreement
     * resolves it; in doubt leaves it as it is. False when the lease was lost (the run was
     * taken over after this process stalled past its lease): nothing is written.
     */
    async recordVerdict(p: {
      runId: string;
      lease: string;
      leaseSeconds: number;
      verdict: BooksVerdictKind;
      detail: BooksCheckDetail;
    }): Promise<{ held: boolean; opened: boolean }> {
      return db.transaction(async (tx) => {
        const held = await tx.query(
          `UPDATE books_check_runs SET leased_until = now() + make_interval(secs => $3::int)
            WHERE id = $1 AND lease = $2 AND finished_at IS NULL RETURNING 1`,
          [p.runId, p.lease, p.leaseSeconds],
        );
        if (held.rows.length === 0) return { held: false, opened: false };
        const d = p.detail;
        await tx.query(
          `UPDATE books_check_orders SET verdict = $3, detail = $4::jsonb, checked_at = now()
            WHERE run_id = $1 AND payment_request_id = $2`,
          [p.runId, d.payment_request_id, p.verdict, JSON.stringify(d)],
        );
        if (p.verdict === 'agree') {
          await tx.query(
            'UPDATE books_incidents SET resolved_at = now() WHERE payment_request_id = $1 AND resolved_at IS NULL',
            [d.payment_request_id],
          );
          return { held: true, opened: false };
        }
        if (p.verdict !== 'disagree' || d.tenant_id === null) return { held: true, opened: false };
        const r = await tx.query<{ opened: boolean }>(
          `INSERT INTO books_incidents (payment_request_id, tenant_id, reference, currency, problems, provider_net,
             payreq_net, open_holds, status)
           VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9)
           ON CONFLICT (payment_request_id) WHERE resolved_at IS NULL DO UPDATE
             SET problems = EXCLUDED.problems, provider_net = EXCLUDED.provider_net, payreq_net = EXCLUDED.payreq_net,
                 open_holds = EXCLUDED.open_holds, status = EXCLUDED.status, last_seen_at = now(),
                 reference = COALESCE(EXCLUDED.reference, books_incidents.reference)
           RETURNING (xmax = 0) AS opened`,
          [
            d.payment_request_id,
            d.tenant_id,
            d.reference,
            d.currency,
            d.problems,
            d.provider_net ?? 0,
            d.payreq_net,
            d.open_holds,
            d.status,
          ],
        );
        return { held: true, opened: r.rows[0]?.opened === true };
      });
    },

    /** The verdicts of a run so far, and the detail of every order that does not agree, in id order. */
    async runResults(runId: string): Promise<{
      counts: Record<BooksVerdictKind | 'unchecked', number>;
      problems: { verdict: BooksVerdictKind; detail: BooksCheckDetail }[];
    }> {
      const c = await db.query<{ verdict: BooksVerdictKind | null; n: number }>(
        'SELECT verdict, count(*)::int AS n FROM books_check_orders WHERE run_id = $1 GROUP BY verdict',
        [runId],
      );
      const counts = { agree: 0, disagree: 0, in_doubt: 0, unchecked: 0 };
      for (const row of c.rows) counts[row.verdict ?? 'unchecked'] = row.n;
      const d = await db.query<{ verdict: BooksVerdictKind; detail: BooksCheckDetail }>(
        `SELECT verdict, detail FROM books_check_orders
          WHERE run_id = $1 AND verdict IN ('disagree', 'in_doubt') ORDER BY payment_request_id`,
        [runId],
      );
      return { counts, problems: d.rows };
    },

    /**
     * Closes the run once every order is checked, keeping it as the scope's last check (the
     * Books page shows it) and dropping the finished ones before it. False: orders are left (or
     * the lease was lost), and the run stays for the next one to carry on.
     */
    async finishRun(runId: string, lease: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const done = await tx.query<{ scope: string }>(
          `UPDATE books_check_runs SET finished_at = now(), leased_until = now()
            WHERE id = $1 AND lease = $2 AND finished_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM books_check_orders WHERE run_id = $1 AND verdict IS NULL)
           RETURNING scope`,
          [runId, lease],
        );
        const scope = done.rows[0]?.scope;
        if (scope === undefined) return false;
        await tx.query('DELETE FROM books_check_runs WHERE scope = $1 AND finished_at IS NOT NULL AND id <> $2', [
          scope,
          runId,
        ]);
        return true;
      });
    },

    /** Lets go of a run that stops before its end: the next one may carry it on at once. */
    async letGo(runId: string, lease: string): Promise<void> {
      await db.query('UPDATE books_check_runs SET leased_until = now() WHERE id = $1 AND lease = $2', [runId, lease]);
    },

    /** Open incidents of one tenant (every tenant: undefined), the oldest first. */
    async openIncidents(tenantId: string | undefined, limit: number): Promise<BooksIncidentRow[]> {
      const r = await db.query<BooksIncidentRow>(
        `SELECT ${INCIDENT_COLUMNS} FROM books_incidents i LEFT JOIN tenants t ON t.id = i.tenant_id
          WHERE i.resolved_at IS NULL AND ($1::uuid IS NULL OR i.tenant_id = $1::uuid)
          ORDER BY i.opened_at, i.id LIMIT $2`,
        [tenantId ?? null, limit],
      );
      return r.rows;
    },

    /** Every incident of one request, open or resolved, in order. */
    async incidentsOfRequest(paymentRequestId: string): Promise<BooksIncidentRow[]> {
      const r = await db.query<BooksIncidentRow>(
        `SELECT ${INCIDENT_COLUMNS} FROM books_incidents i LEFT JOIN tenants t ON t.id = i.tenant_id
          WHERE i.payment_request_id = $1 ORDER BY i.id`,
        [paymentRequestId],
      );
      return r.rows;
    },

    /**
     * Operations whose outcome nobody knows: in doubt, or requested longer ago than
     * `graceSeconds` (their process died). Reconcile's work list, by tenant, the oldest first.
     */
    async inDoubtOperations(
      tenantId: string | undefined,
      graceSeconds: number,
      limit: number,
    ): Promise<InDoubtOperationRow[]> {
      const r = await db.query<InDoubtOperationRow>(
        `SELECT l.id::text, l.payment_request_id::text, l.tenant_id::text, t.name AS tenant_name, p.reference, l.kind,
                l.amount, l.currency, l.state, l.incident, l.error, l.provider_transaction_id,
                l.answer_transaction_id, l.provider_status, l.created_at, l.updated_at
           FROM money_ledger l
           LEFT JOIN payment_requests p ON p.id = l.payment_request_id
           LEFT JOIN tenants t ON t.id = l.tenant_id
          WHERE (l.state = 'in_doubt' OR (l.state = 'requested' AND l.updated_at < now() - make_interval(secs => $2::int)))
            AND ($1::uuid IS NULL OR l.tenant_id = $1::uuid)
          ORDER BY l.updated_at, l.id LIMIT $3`,
        [tenantId ?? null, graceSeconds, limit],
      );
      return r.rows;
    },

    /** Money that arrived where it should not, with no give-back done or under way yet. */
    async misplacedMoney(tenantId: string | undefined, limit: number): Promise<MisplacedMoneyRow[]> {
      const r = await db.query<MisplacedMoneyRow>(
        `SELECT m.id::text, m.payment_request_id::text, m.tenant_id::text, t.name AS tenant_name, p.reference, m.kind,
                m.amount, m.currency, m.incident, m.created_at
           FROM money_ledger m
           LEFT JOIN payment_requests p ON p.id = m.payment_request_id
           LEFT JOIN tenants t ON t.id = m.tenant_id
          WHERE m.incident IS NOT NULL AND m.kind IN ('payment', 'verification', 'hold') AND m.state = 'succeeded'
            AND ($1::uuid IS NULL OR m.tenant_id = $1::uuid)
            AND NOT EXISTS (SELECT 1 FROM money_ledger g WHERE g.parent_id = m.id AND g.state = 'succeeded')
          ORDER BY m.id LIMIT $2`,
        [tenantId ?? null, limit],
      );
      return r.rows;
    },

    /**
     * The last finished check of each scope the reader may see, counting the reader's orders
     * only: a tenant's own checks and the daily every-tenant check (undefined: every scope).
     */
    async lastRuns(tenantId: string | undefined): Promise<BooksRunSummary[]> {
      const r = await db.query<BooksRunSummary>(
        `SELECT r.scope, r.since, r.finished_at,
                count(o.payment_request_id)::int AS orders,
                count(*) FILTER (WHERE o.verdict = 'agree')::int AS agree,
                count(*) FILTER (WHERE o.verdict = 'disagree')::int AS disagree,
                count(*) FILTER (WHERE o.verdict = 'in_doubt')::int AS in_doubt
           FROM books_check_runs r
           LEFT JOIN books_check_orders o ON o.run_id = r.id AND ($1::text IS NULL OR o.detail->>'tenant_id' = $1::text)
          WHERE r.finished_at IS NOT NULL AND ($1::uuid IS NULL OR r.tenant_id IS NULL OR r.tenant_id = $1::uuid)
          GROUP BY r.id ORDER BY r.finished_at DESC`,
        [tenantId ?? null],
      );
      return r.rows;
    },
  };
}
export type BooksRepository = ReturnType<typeof booksRepository>;
