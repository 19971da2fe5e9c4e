import type { Actor, CardNetwork } from '../domain/index.ts';
import type { Database, Queryable } from './database.ts';

export type LedgerKind = 'verification' | 'payment' | 'hold' | 'capture' | 'release' | 'refund' | 'void';
/**
 * requested: the call is under way; succeeded: done; refused: the provider said no, nothing
 * moved (final); failed: it failed or was not reached, nothing moved; in_doubt: nobody knows yet.
 */
export type LedgerState = 'requested' | 'succeeded' | 'failed' | 'refused' | 'in_doubt';

/** One row of the money ledger; amounts in minor units. */
export interface LedgerEntry {
  id: string;
  payment_request_id: string;
  tenant_id: string;
  kind: LedgerKind;
  amount: number;
  currency: string;
  provider: string;
  /**
   * The account (its version) the call went to or the movement came from: reconcile asks it.
   * NULL: no account row (the sandbox) or written before accounts were recorded: the current one.
   */
  provider_account: number | null;
  provider_transaction_id: string | null;
  idempotency_key: string;
  state: LedgerState;
  incident: string | null;
  parent_id: string | null;
  source: Actor['source'];
  actor: string | null;
  error: string | null;
  /** The token of the claim this row's operation ran under (null: none, or written before tokens). */
  claim_token: string | null;
  /** The transaction the provider's answer (or its order view) named, whatever the outcome. */
  answer_transaction_id: string | null;
  /** That transaction's status as the provider wrote it. */
  provider_status: string | null;
  /** The reason of a refusal, as the provider gave it. */
  decline_code: string | null;
  /** Why the hotel moved the money (a capture's or refund's reason on domain/money-reasons.ts's list), and its note. */
  reason: string | null;
  reason_note: string | null;
  /**
   * The provider's short number of the transaction (Lyra's legacyTransId): how its bank
   * reconciliation report names the operation. Null where the answer gave none, or written before.
   */
  legacy_trans_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewLedgerEntry {
  paymentRequestId: string;
  tenantId: string;
  kind: LedgerKind;
  amount: number;
  currency: string;
  provider: string;
  /** The transaction the operation acts on (capture, release, refund, void), or reported (payment). */
  providerTransactionId: string | null;
  idempotencyKey: string;
  incident?: string | null;
  parentId?: string | null;
  actor: Actor;
  /** The token of the claim the operation runs under, recorded with its row. */
  claimToken?: string | null;
  /**
   * A reported movement's account (its version), when the report says which (a notification
   * verified with an old account's key); absent: the tenant's account as it is now.
   */
  providerAccount?: number;
  /** Why the hotel asked for this move (a capture, a refund): a reason of the closed list, and a note. */
  reason?: string | null;
  reasonNote?: string | null;
  /** A reported movement's transaction number, where the report gave one (see LedgerEntry). */
  legacyTransId?: string;
  /**
   * The sandbox's test clock: the moment the operation happens for it (a run made for a given
   * day), kept as the row's time so payreq's records and the sandbox's say the same; absent: now.
   */
  at?: Date;
}

/** A row `request` wrote: its id, and the account (version) it recorded, which the call must use. */
export interface RequestedRow {
  id: string;
  account: number | null;
}

/** The tenant's account version now: one primary-key lookup inside the statement that writes the row. */
const ACCOUNT_NOW = (tenant: string) => `(SELECT pa.version FROM provider_accounts pa WHERE pa.tenant_id = ${tenant})`;

/** What the provider said of the transaction an outcome names. */
export interface LedgerAnswer {
  transactionId: string;
  status?: string | null;
  declineCode?: string | null;
}

/**
 * How a hold placed now counts its end: the tenant's hold length, or less where the card's
 * network lets a merchant-initiated hold live less long (`validity`: the provider's table by
 * network, in seconds, read against the request's stored network; null: no limit), or where
 * the provider stated the end itself (`endsBy`: Stripe's `capture_before`). From `at` when it
 * was placed earlier than it is recorded (the provider's own time, the sandbox's test clock).
 */
export interface HoldTerms {
  validity: Readonly<Record<CardNetwork, number>> | null;
  at?: Date;
  endsBy?: Date;
}

/** What the provider said of one requested row. */
export type LedgerOutcome = (
  | {
      id: string;
      state: 'succeeded';
      transactionId: string;
      status?: string | null;
      legacyTransId?: string | null;
      /** A hold placed: its end, written with its outcome (the request takes it from there). */
      hold?: HoldTerms;
    }
  | { id: string; state: 'failed' | 'refused' | 'in_doubt'; error: string; answer?: LedgerAnswer }
) & {
  /** Settled by hand (`payreq books settle`, the Books page): who decided. */
  settledBy?: string;
};

/** An answer from the provider, late, against an operation a person had settled otherwise. */
export interface LateContradiction {
  id: string;
  /** What the person settled it as, and who. */
  settledAs: string;
  settledBy: string;
  /** What the provider said: succeeded, refused or failed, and the transaction it named. */
  providerSaid: string;
  transactionId: string | null;
}

const COLUMNS = `id::text, payment_request_id, tenant_id, kind, amount, currency, provider, provider_transaction_id,
  idempotency_key, state, incident, parent_id::text, source, actor, error, claim_token::text, provider_account,
  answer_transaction_id, provider_status, decline_code, reason, reason_note, legacy_trans_id, created_at, updated_at`;

/**
 * The new rows, as a table `e` of the WITH that writes them, from one JSON parameter (absent
 * keys are NULL): the driver builds an array parameter by string concatenation, and a column
 * each was much of the daily job's allocations.
 */
const NEW_ROWS = `e AS (
  SELECT * FROM json_to_recordset($1::json)
    AS u(request_id uuid, tenant_id uuid, kind text, amount int, currency text, provider text, txn text, key text,
         incident text, parent_id bigint, source text, actor text, token uuid, reason text, reason_note text,
         at timestamptz))`;

/**
 * The account a new row's call must go to. A move on an existing transaction (a capture or
 * release of a hold, a refund of a payment, the give-back of money that arrived where it should
 * not) goes to the account that made that transaction, as its ledger row recorded it (NULL: the
 * current one, as that row is read): after an account switch (TEST to PRODUCTION at go-live)
 * only the old account knows it. A hold goes to the account that registered the card (the
 * request's last registration): only that account knows the card's token. Anything else, and
 * a transaction or card no row reports, goes to the tenant's account as it is now.
 */
const ACCOUNT_OF_MOVE = `CASE WHEN made.found THEN made.provider_account ELSE ${ACCOUNT_NOW('e.tenant_id')} END`;
const MADE_BY = `LEFT JOIN LATERAL (
     SELECT true AS found, m.provider_account FROM money_ledger m
      WHERE m.payment_request_id = e.request_id AND m.state = 'succeeded'
        AND ((e.kind IN ('capture', 'release', 'refund', 'void') AND m.provider_transaction_id = e.txn
              AND m.kind IN ('payment', 'verification', 'hold'))
          OR (e.kind = 'hold' AND m.kind = 'verification' AND m.incident IS NULL))
      ORDER BY m.id DESC LIMIT 1) made ON true`;

/**
 * Writes the rows of `e` that `WHERE` lets through as `requested`, each with the account its
 * call must go to. A key already in the ledger is the same operation: no second row, unless
 * that operation failed (nothing moved), when the retry takes its row over, with its own
 * claim's token.
 */
const INSERT_REQUESTED = (where: string) => `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount,
     currency, provider, provider_transaction_id, idempotency_key, state, incident, parent_id, source, actor, claim_token,
     provider_account, reason, reason_note, created_at)
   SELECT e.request_id, e.tenant_id, e.kind, e.amount, e.currency, e.provider, e.txn, e.key, 'requested',
          e.incident, e.parent_id, e.source, e.actor, e.token, ${ACCOUNT_OF_MOVE}, e.reason, e.reason_note,
          COALESCE(e.at, now())
     FROM e ${MADE_BY} ${where}
   ON CONFLICT (idempotency_key) DO UPDATE
     SET state = 'requested', error = NULL, amount = EXCLUDED.amount, updated_at = now(),
         answer_transaction_id = NULL, provider_status = NULL, decline_code = NULL,
         provider_transaction_id = EXCLUDED.provider_transaction_id, source = EXCLUDED.source,
         actor = EXCLUDED.actor, claim_token = EXCLUDED.claim_token, provider_account = EXCLUDED.provider_account,
         reason = EXCLUDED.reason, reason_note = EXCLUDED.reason_note
   WHERE money_ledger.state IN ('failed', 'refused')
   RETURNING id::text, idempotency_key, provider_account`;

function newRowParams(entries: readonly NewLedgerEntry[]): unknown[] {
  return [
    JSON.stringify(
      entries.map((e) => ({
        request_id: e.paymentRequestId,
        tenant_id: e.tenantId,
        kind: e.kind,
        amount: e.amount,
        currency: e.currency,
        provider: e.provider,
        txn: e.providerTransactionId,
        key: e.idempotencyKey,
        incident: e.incident,
        parent_id: e.parentId,
        source: e.actor.source,
        actor: e.actor.actor,
        token: e.claimToken,
        reason: e.reason,
        reason_note: e.reasonNote,
        at: e.at?.toISOString(),
      })),
    ),
  ];
}

/**
 * The money ledger's SQL. Rows are written `requested` before the provider is called, and
 * settled once: only a row still requested or in doubt takes an outcome, so a late answer and
 * reconcile racing for the same row have one winner.
 */
export function moneyLedgerRepository(db: Database) {
  return {
    /**
     * Writes rows as `requested`, in one statement; answers their ids in order. A key already
     * in the ledger is the same operation: it gets no second row, and its id is undefined,
     * unless that operation failed (nothing moved), when the retry takes its row over. Each row
     * records the account its call must go to (its version): the one that made the transaction
     * it acts on, or the tenant's account as it is now.
     */
    async request(entries: readonly NewLedgerEntry[], q: Queryable = db): Promise<(RequestedRow | undefined)[]> {
      if (entries.length === 0) return [];
      const r = await q.query<{ id: string; idempotency_key: string; provider_account: number | null }>(
        `WITH ${NEW_ROWS} ${INSERT_REQUESTED('')}`,
        newRowParams(entries),
      );
      const byKey = new Map(r.rows.map((row) => [row.idempotency_key, { id: row.id, account: row.provider_account }]));
      return entries.map((e) => byKey.get(e.idempotencyKey));
    },

    /**
     * As `request`, for rows whose claim was taken by an earlier statement (a command's): a row
     * is written only while its request still holds the row's `claimToken`, and the same
     * statement renews that claim (`pending_since`), so the stale-claim reaper, which frees only
     * claims older than the grace with no open row, cannot free it once the row exists. One
     * statement, one round trip, as `request`: the claim's row lock orders it against the
     * reaper, and a claim freed first leaves nothing to write. `held: false`: the claim is no
     * longer this token's; its holder must not call the provider.
     */
    async requestFenced(
      entries: readonly NewLedgerEntry[],
    ): Promise<{ row: RequestedRow | undefined; held: boolean }[]> {
      if (entries.length === 0) return [];
      const r = await db.query<{ key: string; id: string | null; provider_account: number | null; held: boolean }>(
        `WITH ${NEW_ROWS}, held AS (
           UPDATE payment_requests p SET pending_since = now()
             FROM e WHERE p.id = e.request_id AND p.claim_token = e.token
           RETURNING p.id
         ), ins AS (${INSERT_REQUESTED('WHERE e.request_id IN (SELECT id FROM held)')})
         SELECT e.key, ins.id, ins.provider_account, e.request_id IN (SELECT id FROM held) AS held
           FROM e LEFT JOIN ins ON ins.idempotency_key = e.key`,
        newRowParams(entries),
      );
      const byKey = new Map(r.rows.map((row) => [row.key, row]));
      return entries.map((e) => {
        const row = byKey.get(e.idempotencyKey);
        const written = row?.id ? { id: row.id, account: row.provider_account } : undefined;
        return { row: written, held: row?.held ?? false };
      });
    },

    /**
     * A movement the provider reports (a guest's payment or card registration): already done,
     * on the account the report names, or else the tenant's account as it is now.
     */
    async recordReported(q: Queryable, e: NewLedgerEntry): Promise<string> {
      const r = await q.query<{ id: string }>(
        `INSERT INTO money_ledger (payment_request_id, tenant_id, kind, amount, currency, provider,
           provider_transaction_id, idempotency_key, state, incident, source, actor, provider_account, legacy_trans_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'succeeded', $9, $10, $11, COALESCE($12::int, ${ACCOUNT_NOW('$2')}), $13)
         RETURNING id::text`,
        [
          e.paymentRequestId,
          e.tenantId,
          e.kind,
          e.amount,
          e.currency,
          e.provider,
          e.providerTransactionId,
          e.idempotencyKey,
          e.incident ?? null,
          e.actor.source,
          e.actor.actor,
          e.providerAccount ?? null,
          e.legacyTransId ?? null,
        ],
      );
      return (r.rows[0] as { id: string }).id;
    },

    /**
     * Records outcomes, in one statement; answers the ids that took theirs. A row already
     * settled keeps its state (another settled it first), and in doubt may become anything.
     * A hold placed gets its end here, in the same row version as its outcome: written by a
     * later statement, the end would be a second new version of the row, and an entry in each
     * of the ledger's indexes again, for every hold.
     */
    async settle(q: Queryable, outcomes: readonly LedgerOutcome[]): Promise<Set<string>> {
      if (outcomes.length === 0) return new Set();
      const r = await q.query<{ id: string }>(
        `UPDATE money_ledger l
            SET state = o.state, error = o.error, updated_at = now(), settled_by = o.by,
                provider_transaction_id = CASE WHEN l.kind IN ('hold', 'refund') AND o.state = 'succeeded'
                                               THEN o.txn ELSE l.provider_transaction_id END,
                answer_transaction_id = COALESCE(o.txn, l.answer_transaction_id),
                provider_status = COALESCE(o.status, l.provider_status),
                decline_code = COALESCE(o.decline, l.decline_code),
                legacy_trans_id = COALESCE(o.legacy, l.legacy_trans_id),
                hold_expires_at = CASE WHEN o.hold_placed IS NOT TRUE THEN l.hold_expires_at ELSE (
                  SELECT CASE WHEN o.hold_ends_by IS NOT NULL THEN LEAST(
                                COALESCE(o.hold_at, now()) + make_interval(days => t.hold_days), o.hold_ends_by)
                              WHEN o.hold_caps IS NULL THEN COALESCE(o.hold_at, now()) + make_interval(days => t.hold_days)
                              ELSE COALESCE(o.hold_at, now()) + LEAST(make_interval(days => t.hold_days), make_interval(
                                secs => (o.hold_caps ->> COALESCE(p.card_network, 'other'))::int)) END
                    FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
                   WHERE p.id = l.payment_request_id) END
           FROM json_to_recordset($1::json) AS o(id bigint, state text, txn text, status text, decline text, error text,
                                                 legacy text, by text, hold_placed boolean, hold_caps jsonb,
                                                 hold_at timestamptz, hold_ends_by timestamptz)
          WHERE l.id = o.id AND (l.state = 'requested' OR (l.state = 'in_doubt' AND o.state <> 'in_doubt'))
          RETURNING l.id::text`,
        [
          JSON.stringify(
            outcomes.map((o) =>
              o.state === 'succeeded'
                ? {
                    id: o.id,
                    state: o.state,
                    txn: o.transactionId,
                    status: o.status ?? null,
                    legacy: o.legacyTransId ?? null,
                    by: o.settledBy ?? null,
                    hold_placed: o.hold !== undefined,
                    hold_caps: o.hold?.validity ?? null,
                    hold_at: o.hold?.at?.toISOString() ?? null,
                    hold_ends_by: o.hold?.endsBy?.toISOString() ?? null,
                  }
                : {
                    id: o.id,
                    state: o.state,
                    error: o.error.slice(0, 500),
                    txn: o.answer?.transactionId ?? null,
                    status: o.answer?.status ?? null,
                    decline: o.answer?.declineCode ?? null,
                    by: o.settledBy ?? null,
                  },
            ),
          ),
        ],
      );
      return new Set(r.rows.map((row) => row.id));
    },

    /**
     * Of these outcomes that found their rows already settled, the ones that contradict a
     * settlement made by hand: the provider says it happened where a person said refused, or
     * the reverse. A failed call (nothing reached) contradicts nothing.
     */
    async contradictedByHand(q: Queryable, outcomes: readonly LedgerOutcome[]): Promise<LateContradiction[]> {
      const said = outcomes.filter((o) => o.state === 'succeeded' || o.state === 'refused');
      if (said.length === 0) return [];
      const r = await q.query<{ id: string; state: string; settled_by: string }>(
        `SELECT id::text, state, settled_by FROM money_ledger WHERE id = ANY($1::bigint[]) AND settled_by IS NOT NULL`,
        [said.map((o) => o.id)],
      );
      const rows = new Map(r.rows.map((row) => [row.id, row]));
      return said.flatMap((o) => {
        const row = rows.get(o.id);
        if (!row || (o.state === 'succeeded') === (row.state === 'succeeded')) return [];
        const txn = o.state === 'succeeded' ? o.transactionId : (o.answer?.transactionId ?? null);
        return [
          { id: o.id, settledAs: row.state, settledBy: row.settled_by, providerSaid: o.state, transactionId: txn },
        ];
      });
    },

    /**
     * A late answer against a hand settlement, never dropped: an incident on the request's books
     * (the Books page; the next books check refreshes its figures), and a line of the audit.
     */
    async recordContradiction(q: Queryable, c: LateContradiction): Promise<void> {
      await q.query(
        `WITH row AS (
           SELECT l.id, l.payment_request_id, l.tenant_id, l.kind, l.amount, l.currency, p.reference, p.status,
                  COALESCE(p.amount_captured - p.amount_refunded, 0) AS net
             FROM money_ledger l LEFT JOIN payment_requests p ON p.id = l.payment_request_id
            WHERE l.id = $1::bigint
         ), audit AS (
           INSERT INTO admin_audit (username, tenant_id, ip, action, target, payment_request_id, outcome, detail)
           SELECT NULL, tenant_id, NULL, 'ledger.late_answer', id::text, payment_request_id, 'refused',
                  jsonb_build_object('kind', kind, 'amount', amount, 'settled_as', $2::text, 'settled_by', $3::text,
                                     'provider_said', $4::text, 'transaction_id', $5::text)
             FROM row
         )
         INSERT INTO books_incidents (payment_request_id, tenant_id, reference, currency, problems, provider_net,
                                      payreq_net, open_holds, status)
         SELECT payment_request_id, tenant_id, reference, currency, ARRAY['hand_settlement_contradicted'], net, net, 0, status
           FROM row
         ON CONFLICT (payment_request_id) WHERE resolved_at IS NULL
         DO UPDATE SET problems = ARRAY(SELECT DISTINCT unnest(books_incidents.problems || EXCLUDED.problems)),
                       last_seen_at = now()`,
        [c.id, c.settledAs, c.settledBy, c.providerSaid, c.transactionId],
      );
    },

    /** Marks a reported movement as an incident: it must not count where the status did not move. */
    async markIncident(q: Queryable, id: string, reason: string): Promise<void> {
      await q.query('UPDATE money_ledger SET incident = $2 WHERE id = $1', [id, reason]);
    },

    /** Whether this provider transaction was already reported (paid or registered) for the request. */
    async hasReportedTransaction(q: Queryable, paymentRequestId: string, transactionId: string): Promise<boolean> {
      const r = await q.query(
        `SELECT 1 FROM money_ledger
          WHERE payment_request_id = $1 AND provider_transaction_id = $2 AND kind IN ('payment', 'verification')`,
        [paymentRequestId, transactionId],
      );
      return r.rows.length > 0;
    },

    /**
     * Whether nothing moved on the request since the ledger's row `lastId` was read: no newer
     * row, none open, and no claim on the request, whose row this locks for the transaction
     * (a claim taken meanwhile waits for it).
     */
    async quietSince(q: Queryable, paymentRequestId: string, lastId: string): Promise<boolean> {
      // The request's row, if it still exists (a deleted request's holds are given back too).
      await q.query('SELECT 1 FROM payment_requests WHERE id = $1 FOR UPDATE', [paymentRequestId]);
      const r = await q.query<{ quiet: boolean }>(
        `SELECT NOT EXISTS (SELECT 1 FROM payment_requests p WHERE p.id = $1 AND p.pending_action IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM money_ledger l
                                 WHERE l.payment_request_id = $1
                                   AND (l.id > $2::bigint OR l.state IN ('requested', 'in_doubt'))) AS quiet`,
        [paymentRequestId, lastId],
      );
      return r.rows[0]?.quiet ?? false;
    },

    /**
     * Rows of a provider with accounts whose account was never recorded (written before
     * accounts were), with a transaction to look for, not asked about in the last day; each
     * with the account versions its tenant has had with that provider. Marked asked now.
     */
    async withoutAccount(limit: number): Promise<(LedgerEntry & { versions: number[] })[]> {
      const r = await db.query<LedgerEntry & { versions: number[] }>(
        `WITH picked AS (
           SELECT l.id FROM money_ledger l
            WHERE l.provider_account IS NULL AND l.provider <> 'sandbox'
              AND COALESCE(l.provider_transaction_id, l.answer_transaction_id) IS NOT NULL
              AND (l.account_asked_at IS NULL OR l.account_asked_at < now() - interval '1 day')
              AND EXISTS (SELECT 1 FROM provider_account_versions v
                           WHERE v.tenant_id = l.tenant_id AND v.provider = l.provider)
            ORDER BY l.id LIMIT $1 FOR UPDATE SKIP LOCKED
         ), marked AS (
           UPDATE money_ledger l SET account_asked_at = now() FROM picked WHERE l.id = picked.id RETURNING l.*
         )
         SELECT ${COLUMNS},
                ARRAY(SELECT v.version FROM provider_account_versions v
                       WHERE v.tenant_id = m.tenant_id AND v.provider = m.provider ORDER BY v.version) AS versions
           FROM marked m ORDER BY m.id`,
        [limit],
      );
      return r.rows;
    },

    /** Records the account that showed a row's transaction, unless one was recorded meanwhile. */
    async setAccount(id: string, version: number): Promise<void> {
      await db.query('UPDATE money_ledger SET provider_account = $2 WHERE id = $1 AND provider_account IS NULL', [
        id,
        version,
      ]);
    },

    /** Whether this transaction was already recorded as a hold the request does not own (to give back). */
    async hasRecordedHold(q: Queryable, paymentRequestId: string, transactionId: string): Promise<boolean> {
      const r = await q.query(
        `SELECT 1 FROM money_ledger
          WHERE payment_request_id = $1 AND kind = 'hold' AND incident IS NOT NULL AND provider_transaction_id = $2`,
        [paymentRequestId, transactionId],
      );
      return r.rows.length > 0;
    },

    async findByKey(key: string): Promise<LedgerEntry | undefined> {
      const r = await db.query<LedgerEntry>(`SELECT ${COLUMNS} FROM money_ledger WHERE idempotency_key = $1`, [key]);
      return r.rows[0];
    },

    async find(id: string, q: Queryable = db): Promise<LedgerEntry | undefined> {
      const r = await q.query<LedgerEntry>(`SELECT ${COLUMNS} FROM money_ledger WHERE id = $1`, [id]);
      return r.rows[0];
    },

    async forRequest(paymentRequestId: string, q: Queryable = db): Promise<LedgerEntry[]> {
      const r = await q.query<LedgerEntry>(
        // By the row's bigint id: a bare `id` would name the output column, its text (10 before 9).
        `SELECT ${COLUMNS} FROM money_ledger WHERE payment_request_id = $1 ORDER BY money_ledger.id`,
        [paymentRequestId],
      );
      return r.rows;
    },

    /** Rows whose outcome nobody knows: in doubt, or requested by a process that died (older than `seconds`). */
    async unsettled(seconds: number, limit: number): Promise<LedgerEntry[]> {
      const r = await db.query<LedgerEntry>(
        `SELECT ${COLUMNS} FROM money_ledger
          WHERE state = 'in_doubt' OR (state = 'requested' AND updated_at < now() - make_interval(secs => $1::int))
          ORDER BY updated_at LIMIT $2`,
        [seconds, limit],
      );
      return r.rows;
    },

    /** Money that arrived where it should not and has no give-back settled or under way yet. */
    async incidentsNotGivenBack(limit: number): Promise<LedgerEntry[]> {
      const r = await db.query<LedgerEntry>(
        `SELECT ${COLUMNS} FROM money_ledger m
          WHERE m.incident IS NOT NULL AND m.kind IN ('payment', 'verification', 'hold') AND m.state = 'succeeded'
            AND NOT EXISTS (SELECT 1 FROM money_ledger g
                             WHERE g.parent_id = m.id AND g.state NOT IN ('failed', 'refused'))
          ORDER BY m.id LIMIT $1`,
        [limit],
      );
      return r.rows;
    },
  };
}
export type MoneyLedgerRepository = ReturnType<typeof moneyLedgerRepository>;
