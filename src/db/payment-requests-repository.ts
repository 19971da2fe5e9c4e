import { randomUUID } from 'node:crypto';
import {
  type Actor,
  type Currency,
  type Language,
  type NewPaymentRequest,
  type PendingAction,
  type RequestType,
  referenceSequenceName,
  type Source,
  type Status,
} from '../domain/index.ts';
import { requestDetailColumnsSql } from '../events/index.ts';
import { batchCalls } from './call-batcher.ts';
import { type Database, PG, pgCode, type Queryable } from './database.ts';
import { KEY_TAKEOVER } from './idempotency-repository.ts';
import { whereBuilder } from './where-builder.ts';

/** A row as the API needs it; money in minor units. */
export interface PaymentRequestRow {
  id: string;
  tenant_id: string;
  reference: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: Currency;
  guest_email: string;
  guest_first_name: string;
  guest_last_name: string;
  guest_phone: string;
  language: Language;
  reservation_ref: string;
  reservation_data: Record<string, unknown>;
  masked_pan: string;
  card_expiry_month: number | null;
  card_expiry_year: number | null;
  email_sent: boolean;
  pending_action: PendingAction | null;
  /** The provider that took the guest's payment or card, and its transaction that capture, release and refund act on. */
  provider: string | null;
  provider_transaction_id: string | null;
  hold_expires_at: Date | null;
  link_expires_at: Date;
  created_at: Date;
  updated_at: Date;
  /** An IMPRINT's guarantee: when its last hold was refused (null: never), and how many were. */
  guarantee_failed_at: Date | null;
  guarantee_failures: number;
  /** Why the bank declined the last hold tried (payreq's reason), and the provider's code; null: none since. */
  hold_decline_reason: string | null;
  hold_decline_code: string | null;
  /** Why the hotel captured, and made its last refund (a reason of domain/money-reasons.ts's list), with their notes; null: none given. */
  capture_reason: string | null;
  capture_note: string | null;
  refund_reason: string | null;
  refund_note: string | null;
  /** When the hotel released the hold (AUTHORISED_TO_VALIDATE to CANCELLED); null: never released. */
  released_at: Date | null;
  /** Why the bank refused the guest's card when that made the request REFUSED (payreq's reason), and the provider's code. */
  decline_reason: string | null;
  decline_code: string | null;
  /** The request this one replaces (the back office's "Send a new link"), and the one that replaced it. */
  replaces: string | null;
  replaced_by: string | null;
}

/** A row just claimed, with its claim's token. */
export type ClaimedRow = PaymentRequestRow & { claim_token: string };

/** What every view of a request reads (the API, the guest's pages, the back office's list). */
export type RequestSummaryFields = Pick<
  PaymentRequestRow,
  | 'id'
  | 'tenant_id'
  | 'reference'
  | 'request_type'
  | 'status'
  | 'amount'
  | 'amount_captured'
  | 'amount_refunded'
  | 'currency'
  | 'guest_email'
  | 'guest_first_name'
  | 'guest_last_name'
  | 'reservation_ref'
>;

export interface StatusRow {
  id: string;
  reference: string;
  reservation_ref: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  amount_captured: number;
}

export interface ListFilter {
  status?: Status;
  requestType?: RequestType;
  reservationRef?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Keyset: rows strictly older than this (created_at, id). */
  before?: { createdAt: Date; id: string };
  limit: number;
}

/** The columns of a PaymentRequestRow, in a SELECT of payment_requests. */
export const DETAIL_COLUMNS = `id, tenant_id, reference, request_type, status, amount, amount_captured, amount_refunded,
  currency, guest_email, guest_first_name, guest_last_name, guest_phone, language, reservation_ref,
  reservation_data, masked_pan, card_expiry_month, card_expiry_year, email_sent, pending_action,
  provider, provider_transaction_id, hold_expires_at, link_expires_at, created_at, updated_at,
  guarantee_failed_at, guarantee_failures, hold_decline_reason, hold_decline_code, capture_reason, capture_note,
  refund_reason, refund_note, released_at, decline_reason, decline_code,
  replaces, replaced_by`;

// Built once: a statement is named by its text, and a text built at each call is hashed again
// at each call (a microsecond and more for these, on every detail and every notification).
const FIND_SQL = `SELECT ${DETAIL_COLUMNS} FROM payment_requests WHERE id = $1 AND tenant_id = $2`;
const FIND_ANY_TENANT_SQL = `SELECT ${DETAIL_COLUMNS} FROM payment_requests WHERE id = $1`;
// The API's detail of one request, as JSON text written by the database: the driver is given
// one column instead of forty to describe, parse and build a row of, and nothing is presented
// or serialized again in Node. Measured under load: about 40 µs less of Node a detail (of about
// 130), for about 10 µs more of the database's (bench/notes.md).
const DETAIL_JSON_SQL = `SELECT row_to_json(d)::text AS detail
  FROM (SELECT ${requestDetailColumnsSql()}
          FROM payment_requests p
         WHERE p.id = $1 AND p.tenant_id = $2) d`;

// One round trip, with or without an Idempotency-Key ($20). The reference comes from the
// tenant's sequence inside the statement, and the creation is written to the history by the
// same statement. When the tenant e-mails its guests ($19), the payment link e-mail is queued
// in the outbox by that statement too: the request never exists without its e-mail, nor the
// e-mail without its request.
//
// With a key, the statement also stores the key with its response, already complete: the 201
// body the route serialised ($22), with the reference put in place of its placeholder ($23).
// The request rows are written only if that key row was written (k returned it), so:
// - a key already held (a replay, another body, another route's claim) creates nothing, and
//   draws no reference either (ref checks first), so retries leave no gap in the numbering;
// - two concurrent requests with one key: the second's INSERT into idempotency_keys waits for
//   the first to commit, then conflicts, and the second creates nothing;
// - an expired key or an abandoned claim is taken over (KEY_TAKEOVER, as claim() does);
// - any error (the year's sequence not made yet) rolls the key back with the request.
// The route then reads the key's row to replay it, or to answer 422 or 409 (src/api/idempotency.ts).
// The number has at least 4 digits, more past 9999 (to_char): lpad() would cut 10000 to '1000',
// a duplicate reference. No SQL comment inside: the benchmark runs this text on one line.
export const CREATE_SQL = `
WITH ref AS (
  SELECT $3 || to_char(nextval($4::regclass), 'FM9999999999999990000') AS reference
   WHERE $20::text IS NULL OR NOT EXISTS (
     SELECT 1 FROM idempotency_keys
      WHERE idempotency_keys.tenant_id = $2::uuid AND idempotency_keys.key = $20::text AND NOT ${KEY_TAKEOVER})
), k AS (
  INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, response_body)
  SELECT $2::uuid, $20::text, $21::text, 201, replace($22::text, $23::text, reference) FROM ref
   WHERE $20::text IS NOT NULL
  ON CONFLICT (tenant_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
        response_body = EXCLUDED.response_body, created_at = now()
  WHERE ${KEY_TAKEOVER}
  RETURNING response_body
), pr AS (
  INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
    guest_email, guest_first_name, guest_last_name, guest_phone, language, reservation_ref,
    reservation_data, checkin, link_expires_at)
  SELECT $1::uuid, $2::uuid, reference, $5, 'NOT_INITIATED', $6, $7,
    $8, $9, $10, $11, $12, $13, $14::jsonb, $15::date, now() + make_interval(days => $16::int)
    FROM ref WHERE $20::text IS NULL OR EXISTS (SELECT 1 FROM k)
  RETURNING id, tenant_id, reference
), h AS (
  INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor)
  SELECT id, tenant_id, NULL, 'NOT_INITIATED', $17, $18 FROM pr
), mail AS (
  INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
  SELECT tenant_id, id, 'payment_link', 'payment_link:' || id FROM pr WHERE $19::boolean
)
SELECT pr.reference, k.response_body FROM pr LEFT JOIN k ON true`;

// CREATE_SQL for a group of creates, one row each, made while the statements before were under
// way (the batcher below): per row, what CREATE_SQL does for one. A statement's own cost (its
// plan, the tables and indexes it opens, the constraints it checks, the events trigger's call)
// is paid once for the group instead of once per create: under 16 connections, it was more
// than half of a create's database time (bench/notes.md). Two creates with one key are never
// in one group (the batcher keeps them apart: ON CONFLICT cannot touch a row twice in one
// statement). A tenant's first request of its year (no sequence yet) fails the whole
// statement, which then wrote nothing: each create of the group is then run alone. A held key
// is looked up by a LIMIT 1 lateral, a probe of the key's index per row: as NOT EXISTS, the
// planner hashed every key of the last day at each statement (quadratic as the day's keys
// grow).
export const CREATE_MANY_SQL = `
WITH c AS (
  SELECT * FROM json_to_recordset($1::json) AS c(i int, id uuid, tenant_id uuid, prefix text, seq text,
    request_type text, amount int, currency text, guest_email text, guest_first_name text, guest_last_name text,
    guest_phone text, language text, reservation_ref text, reservation_data jsonb, checkin date, days int,
    source text, actor text, email boolean, key text, fingerprint text, body text, placeholder text)
), ref AS (
  SELECT c.*, c.prefix || to_char(nextval(c.seq::regclass), 'FM9999999999999990000') AS reference
    FROM c
    LEFT JOIN LATERAL (
      SELECT true AS held FROM idempotency_keys
       WHERE idempotency_keys.tenant_id = c.tenant_id AND idempotency_keys.key = c.key AND NOT ${KEY_TAKEOVER}
       LIMIT 1
    ) held ON true
   WHERE held.held IS NULL
), k AS (
  INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, response_body)
  SELECT tenant_id, key, fingerprint, 201, replace(body, placeholder, reference) FROM ref
   WHERE key IS NOT NULL
  ON CONFLICT (tenant_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
        response_body = EXCLUDED.response_body, created_at = now()
  WHERE ${KEY_TAKEOVER}
  RETURNING tenant_id, key, response_body
), pr AS (
  INSERT INTO payment_requests (id, tenant_id, reference, request_type, status, amount, currency,
    guest_email, guest_first_name, guest_last_name, guest_phone, language, reservation_ref,
    reservation_data, checkin, link_expires_at)
  SELECT ref.id, ref.tenant_id, ref.reference, ref.request_type, 'NOT_INITIATED', ref.amount, ref.currency,
    ref.guest_email, ref.guest_first_name, ref.guest_last_name, ref.guest_phone, ref.language,
    ref.reservation_ref, ref.reservation_data, ref.checkin, now() + make_interval(days => ref.days)
    FROM ref
   WHERE ref.key IS NULL OR EXISTS (SELECT 1 FROM k WHERE k.tenant_id = ref.tenant_id AND k.key = ref.key)
  RETURNING id, tenant_id, reference
), h AS (
  INSERT INTO status_history (payment_request_id, tenant_id, from_status, to_status, source, actor)
  SELECT pr.id, pr.tenant_id, NULL, 'NOT_INITIATED', c.source, c.actor FROM pr JOIN c ON c.id = pr.id
), mail AS (
  INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause)
  SELECT pr.tenant_id, pr.id, 'payment_link', 'payment_link:' || pr.id FROM pr JOIN c ON c.id = pr.id
   WHERE c.email
)
SELECT c.i, pr.reference, k.response_body
  FROM pr JOIN c ON c.id = pr.id
  LEFT JOIN k ON k.tenant_id = c.tenant_id AND k.key = c.key`;

/** One create of a group: the row CREATE_MANY_SQL reads for it (the same values as createParams). */
function createRow(
  i: number,
  id: string,
  tenantId: string,
  p: NewPaymentRequest,
  opts: CreateOptions,
  key: CreateKey | undefined,
) {
  return {
    i,
    id,
    tenant_id: tenantId,
    prefix: `${p.requestType === 'DEPOSIT' ? 'DEP' : 'IMP'}-${opts.year}-`,
    seq: referenceSequenceName(tenantId, p.requestType, opts.year),
    request_type: p.requestType,
    amount: p.amountCents,
    currency: p.currency,
    guest_email: p.guestEmail,
    guest_first_name: p.guestFirstName,
    guest_last_name: p.guestLastName,
    guest_phone: p.guestPhone,
    language: p.language,
    reservation_ref: p.reservationRef,
    reservation_data: p.reservationData,
    checkin: p.checkin,
    days: opts.linkLifetimeDays,
    source: opts.actor.source,
    actor: opts.actor.actor,
    email: opts.emailLink ?? false,
    key: key?.key ?? null,
    fingerprint: key?.fingerprint ?? null,
    body: key?.template ?? null,
    placeholder: key?.placeholder ?? null,
  };
}

/** A code PostgreSQL gave (a SQLSTATE), not a client-side one (ECONNRESET, database_unavailable). */
const isSqlState = (code: string | undefined) => code !== undefined && /^[0-9A-Z]{5}$/.test(code);

/** A create waiting for its group, its id drawn and its key's answer made. */
interface PendingCreate {
  id: string;
  tenantId: string;
  p: NewPaymentRequest;
  opts: CreateOptions;
  key: CreateKey | undefined;
}

export interface CreateOptions {
  year: number;
  linkLifetimeDays: number;
  actor: Actor;
  emailLink?: boolean;
}

/** An Idempotency-Key stored, with its response, by the statement that creates the request. */
export interface CreateKey {
  key: string;
  /** Tells this request's method, path and body from another's under the same key. */
  fingerprint: string;
  /** The 201 body exactly as the client receives it, with `placeholder` where the reference goes. */
  template: string;
  /** A random token, new for each request, that nothing else in the body can contain. */
  placeholder: string;
}

/**
 * The parameters of CREATE_SQL, in order: a plain positional array, exported with it so the
 * benchmark's SQL floor runs exactly what a create runs (bench/). Without a key, $20..$23 are
 * null and the statement is the plain create.
 */
export function createParams(
  id: string,
  tenantId: string,
  p: NewPaymentRequest,
  opts: CreateOptions,
  key?: CreateKey,
): unknown[] {
  return [
    id,
    tenantId,
    `${p.requestType === 'DEPOSIT' ? 'DEP' : 'IMP'}-${opts.year}-`,
    referenceSequenceName(tenantId, p.requestType, opts.year),
    p.requestType,
    p.amountCents,
    p.currency,
    p.guestEmail,
    p.guestFirstName,
    p.guestLastName,
    p.guestPhone,
    p.language,
    p.reservationRef,
    JSON.stringify(p.reservationData),
    p.checkin,
    opts.linkLifetimeDays,
    opts.actor.source,
    opts.actor.actor,
    opts.emailLink ?? false,
    key?.key ?? null,
    key?.fingerprint ?? null,
    key?.template ?? null,
    key?.placeholder ?? null,
  ];
}

/** A created request; `response` is the body stored under the Idempotency-Key, when one was given. */
export interface Created {
  id: string;
  reference: string;
  response: string | null;
}

export function paymentRequestsRepository(db: Database) {
  async function ensureSequence(tenantId: string, type: RequestType, year: number, name: string) {
    try {
      await db.query(`CREATE SEQUENCE IF NOT EXISTS ${name}`);
    } catch (err) {
      // Two creates racing to make the same sequence: the loser's error only says it exists.
      if (pgCode(err) !== PG.uniqueViolation && pgCode(err) !== PG.duplicateTable) throw err;
    }
    await db.query(
      `INSERT INTO reference_counters (tenant_id, request_type, year, sequence_name)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [tenantId, type, year, name],
    );
  }

  /** One create alone, by CREATE_SQL; the tenant's first of its type this year makes its sequence. */
  async function createOne(c: PendingCreate): Promise<Created | undefined> {
    const params = createParams(c.id, c.tenantId, c.p, c.opts, c.key);
    type Row = { reference: string; response_body: string | null };
    let r: { rows: Row[] };
    try {
      r = await db.query<Row>(CREATE_SQL, params);
    } catch (err) {
      if (pgCode(err) !== PG.undefinedTable) throw err;
      // The tenant's first request of this type this year: make its sequence, then retry.
      // The failed statement stored no key either: it rolled back as a whole.
      await ensureSequence(
        c.tenantId,
        c.p.requestType,
        c.opts.year,
        referenceSequenceName(c.tenantId, c.p.requestType, c.opts.year),
      );
      r = await db.query<Row>(CREATE_SQL, params);
    }
    const row = r.rows[0];
    return row && { id: c.id, reference: row.reference, response: row.response_body };
  }

  /**
   * A group of creates by one statement; if it fails (it then wrote nothing), each alone, so
   * that each gets its own answer or error.
   */
  async function createGroup(group: readonly PendingCreate[]): Promise<PromiseSettledResult<Created | undefined>[]> {
    const alone = () => Promise.allSettled(group.map(createOne));
    if (group.length === 1) return alone();
    type Row = { i: number; reference: string; response_body: string | null };
    let rows: Row[];
    try {
      const json = JSON.stringify(group.map((c, i) => createRow(i, c.id, c.tenantId, c.p, c.opts, c.key)));
      rows = (await db.query<Row>(CREATE_MANY_SQL, [json])).rows;
    } catch (err) {
      // PostgreSQL's own error: the statement rolled back, nothing of the group was written.
      // Any other (the connection lost, no answer in time): the group's outcome is unknown, and
      // running its creates again could make them twice; each fails as a lone create would.
      if (!isSqlState(pgCode(err))) throw err;
      return alone();
    }
    const made = new Map(rows.map((r) => [r.i, r]));
    return group.map((c, i) => {
      const row = made.get(i);
      return { status: 'fulfilled', value: row && { id: c.id, reference: row.reference, response: row.response_body } };
    });
  }

  // Two groups under way at once, each of up to 32 creates: measured with 16 connections
  // creating (bench/notes.md). A lone create waits one turn of the event loop at most.
  const createBatched = batchCalls(createGroup, {
    maxGroup: 32,
    inFlight: 2,
    keyOf: (c) => (c.key ? `${c.tenantId} ${c.key.key}` : undefined),
  });

  return {
    /**
     * Creates the request in one statement. With `key` (given the request's id, it tells the
     * response to store), the key is stored with it; undefined means the key was not free and
     * nothing was created: the caller reads the key's row.
     */
    async create(
      tenantId: string,
      p: NewPaymentRequest,
      opts: CreateOptions,
      key?: (id: string) => CreateKey,
    ): Promise<Created | undefined> {
      const id = randomUUID();
      return createBatched({ id, tenantId, p, opts, key: key?.(id) });
    },

    /** The request's detail as the API answers it, as JSON text; undefined: no such request for this tenant. */
    async findDetailJson(tenantId: string, id: string): Promise<string | undefined> {
      const r = await db.query<{ detail: string }>(DETAIL_JSON_SQL, [id, tenantId]);
      return r.rows[0]?.detail;
    },

    async find(tenantId: string, id: string, q: Queryable = db): Promise<PaymentRequestRow | undefined> {
      const r = await q.query<PaymentRequestRow>(FIND_SQL, [id, tenantId]);
      return r.rows[0];
    },

    /**
     * Names a request and the one made to replace it, each on the other, in one statement: the
     * old one only while it names no other (so its first replacement stays the one), the new one
     * only with it. False when the old one was already replaced by another.
     */
    async linkReplacement(tenantId: string, oldId: string, newId: string): Promise<boolean> {
      const r = await db.query(
        `WITH old AS (
           UPDATE payment_requests SET replaced_by = $3
            WHERE id = $2 AND tenant_id = $1 AND (replaced_by IS NULL OR replaced_by = $3)
           RETURNING id
         )
         UPDATE payment_requests SET replaces = $2
          WHERE id = $3 AND tenant_id = $1 AND EXISTS (SELECT 1 FROM old)
         RETURNING id`,
        [tenantId, oldId, newId],
      );
      return r.rowCount > 0;
    },

    /** The row whatever its tenant: for the jobs and notifications, never for a caller's request. */
    async findAnyTenant(id: string, q: Queryable = db): Promise<PaymentRequestRow | undefined> {
      const r = await q.query<PaymentRequestRow>(FIND_ANY_TENANT_SQL, [id]);
      return r.rows[0];
    },

    /**
     * Frees claims older than `seconds` with no ledger row open: their process died (or
     * stalled) before asking the provider anything (the ledger row is written before every
     * call), so nothing moved. One statement: a command's ledger row is written only while its
     * claim holds and renews the claim's `pending_since` as it is written, so a row written
     * meanwhile keeps its claim (the row lock orders the two), and a holder whose claim is freed
     * here writes no row and never calls the provider. A hold's attempt is counted. Answers how
     * many were freed.
     */
    async releaseStaleClaims(seconds: number, limit: number): Promise<number> {
      const r = await db.query(
        `UPDATE payment_requests p
            SET pending_action = NULL, pending_since = NULL, claim_token = NULL,
                hold_attempts = p.hold_attempts + CASE WHEN p.pending_action = 'hold' THEN 1 ELSE 0 END,
                last_hold_error = CASE WHEN p.pending_action = 'hold' THEN NULL ELSE p.last_hold_error END
          WHERE p.id IN (SELECT s.id FROM payment_requests s
                          WHERE s.pending_action IS NOT NULL AND s.pending_since < now() - make_interval(secs => $1::int)
                          ORDER BY s.pending_since LIMIT $2)
            AND p.pending_action IS NOT NULL AND p.pending_since < now() - make_interval(secs => $1::int)
            AND NOT EXISTS (SELECT 1 FROM money_ledger l
                             WHERE l.payment_request_id = p.id AND l.state IN ('requested', 'in_doubt'))`,
        [seconds, limit],
      );
      return r.rowCount;
    },

    /** Newest first, keyset pagination on (created_at, id): the cost of page N is that of page 1. */
    async list(tenantId: string, f: ListFilter): Promise<PaymentRequestRow[]> {
      const w = whereBuilder().and('tenant_id = ?', tenantId);
      if (f.status) w.and('status = ?', f.status);
      if (f.requestType) w.and('request_type = ?', f.requestType);
      if (f.reservationRef) w.and('reservation_ref = ?', f.reservationRef);
      if (f.createdAfter) w.and('created_at >= ?', f.createdAfter);
      if (f.createdBefore) w.and('created_at < ?', f.createdBefore);
      if (f.before) w.and('(created_at, id) < (?, ?::uuid)', f.before.createdAt, f.before.id);
      const r = await db.query<PaymentRequestRow>(
        `SELECT ${DETAIL_COLUMNS} FROM payment_requests ${w.clause}
          ORDER BY created_at DESC, id DESC LIMIT ${w.param(f.limit)}`,
        w.params,
      );
      return r.rows;
    },

    async statuses(tenantId: string, refs: readonly string[]): Promise<StatusRow[]> {
      const r = await db.query<StatusRow>(
        `SELECT id, reference, reservation_ref, request_type, status, amount, amount_captured
           FROM payment_requests WHERE tenant_id = $1 AND reservation_ref = ANY($2::text[])
          ORDER BY reservation_ref, created_at, id`,
        [tenantId, refs],
      );
      return r.rows;
    },

    /**
     * Claims the row for a money command that must talk to the provider: only one claim can
     * win, and the provider is then called outside any transaction. `token`, new for each
     * claim, names the holder: its ledger row is written only while the row still holds it.
     */
    async claim(
      tenantId: string,
      id: string,
      from: readonly Status[],
      action: 'capture' | 'release' | 'refund' | 'hold',
      token: string,
    ): Promise<ClaimedRow | undefined> {
      const r = await db.query<ClaimedRow>(
        `UPDATE payment_requests SET pending_action = $4, pending_since = now(), claim_token = $5
          WHERE id = $1 AND tenant_id = $2 AND status = ANY($3::text[]) AND pending_action IS NULL
          RETURNING ${DETAIL_COLUMNS}, claim_token::text`,
        [id, tenantId, from, action, token],
      );
      return r.rows[0];
    },

    /** Gives a claim back after the provider said no or could not be reached. */
    async history(id: string) {
      const r = await db.query<{
        from_status: Status | null;
        to_status: string;
        source: Source;
        actor: string | null;
        detail: Record<string, unknown> | null;
        ledger_id: string | null;
        created_at: Date;
      }>(
        `SELECT from_status, to_status, source, actor, detail, ledger_id::text, created_at
           FROM status_history WHERE payment_request_id = $1 ORDER BY id`,
        [id],
      );
      return r.rows;
    },
  };
}
export type PaymentRequestsRepository = ReturnType<typeof paymentRequestsRepository>;
