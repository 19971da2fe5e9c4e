import type { Database, Queryable } from '../db/index.ts';
import type { CardNetwork } from '../domain/index.ts';

/** A tenant's connection to its Apaleo property, as stored: the client secret stays sealed. */
export interface ConnectionRow {
  tenant_id: string;
  kind: 'apaleo';
  property_id: string;
  property_name: string | null;
  api_url: string;
  identity_url: string;
  secrets_sealed: string;
  version: string;
  reservation_rule: ReservationRuleKind | null;
  reservation_rule_value: number | null;
  webhook_secret_hash: string | null;
  webhook_subscription_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type ReservationRuleKind = 'imprint' | 'deposit_percent' | 'deposit_nights';
export type PostingState = 'pending' | 'posted' | 'failed' | 'skipped';

export interface PostingRow {
  id: string;
  tenant_id: string;
  payment_request_id: string;
  ledger_id: string;
  reference: string;
  reservation_id: string;
  kind: 'payment' | 'refund';
  amount: number;
  currency: string;
  idempotency_key: string;
  state: PostingState;
  reason: string | null;
  method: string | null;
  folio_id: string | null;
  apaleo_id: string | null;
  attempts: number;
  retries: number;
  maybe_sent: boolean;
  next_attempt_at: Date;
  first_due_at: Date;
  posted_at: Date | null;
  created_at: Date;
}

/** A posting as its job needs it: with the tenant's connection (none: disconnected) and the card. */
export interface PostingWork extends PostingRow {
  connection: ConnectionRow | null;
  card_network: CardNetwork | null;
  masked_pan: string | null;
}

export interface EventRow {
  id: string;
  tenant_id: string;
  event_id: string;
  type: string;
  reservation_id: string;
  state: 'pending' | 'done' | 'failed';
  outcome: string | null;
  attempts: number;
  created_at: Date;
}

const CONNECTION = `tenant_id, kind, property_id, property_name, api_url, identity_url, secrets_sealed, version::text,
  reservation_rule, reservation_rule_value, webhook_secret_hash, webhook_subscription_id, created_at, updated_at`;
const POSTING = `p.id::text, p.tenant_id, p.payment_request_id, p.ledger_id::text, p.reference, p.reservation_id, p.kind,
  p.amount, p.currency, p.idempotency_key, p.state, p.reason, p.method, p.folio_id, p.apaleo_id, p.attempts, p.retries,
  p.maybe_sent, p.next_attempt_at, p.first_due_at, p.posted_at, p.created_at`;

export interface NewConnection {
  propertyId: string;
  propertyName: string | null;
  apiUrl: string;
  identityUrl: string;
  secretsSealed: string;
}

/** How an attempt at a posting ended, as its job records it with the job's settlement. */
export type PostingOutcome =
  | { state: 'posted'; apaleoId: string; folioId: string; method: string }
  | { state: 'failed' | 'skipped'; reason: string; folioId?: string | null; maybeSent?: boolean }
  | { state: 'pending'; reason: string; nextAttemptAt: Date; maybeSent: boolean };

export function pmsRepository(db: Database) {
  return {
    async connection(tenantId: string, q: Queryable = db): Promise<ConnectionRow | undefined> {
      const r = await q.query<ConnectionRow>(`SELECT ${CONNECTION} FROM pms_connections WHERE tenant_id = $1`, [
        tenantId,
      ]);
      return r.rows[0];
    },

    /**
     * Connects (or connects anew): a new version, so no token of the former connection is used.
     * The reservation rule and its subscription stay only while the property is the same.
     */
    async connect(tenantId: string, c: NewConnection): Promise<ConnectionRow> {
      const r = await db.query<ConnectionRow>(
        `INSERT INTO pms_connections (tenant_id, kind, property_id, property_name, api_url, identity_url, secrets_sealed)
         VALUES ($1, 'apaleo', $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id) DO UPDATE SET
           property_id = EXCLUDED.property_id, property_name = EXCLUDED.property_name, api_url = EXCLUDED.api_url,
           identity_url = EXCLUDED.identity_url, secrets_sealed = EXCLUDED.secrets_sealed,
           version = pms_connections.version + 1, updated_at = now(),
           reservation_rule = CASE WHEN pms_connections.property_id = EXCLUDED.property_id
                                   THEN pms_connections.reservation_rule END,
           reservation_rule_value = CASE WHEN pms_connections.property_id = EXCLUDED.property_id
                                         THEN pms_connections.reservation_rule_value END,
           webhook_secret_hash = CASE WHEN pms_connections.property_id = EXCLUDED.property_id
                                      THEN pms_connections.webhook_secret_hash END,
           webhook_subscription_id = CASE WHEN pms_connections.property_id = EXCLUDED.property_id
                                          THEN pms_connections.webhook_subscription_id END
         RETURNING ${CONNECTION}`,
        [tenantId, c.propertyId, c.propertyName, c.apiUrl, c.identityUrl, c.secretsSealed],
      );
      return r.rows[0] as ConnectionRow;
    },

    /** Disconnects; answers the connection that was (its subscription is to be removed). */
    async disconnect(tenantId: string): Promise<ConnectionRow | undefined> {
      const r = await db.query<ConnectionRow>(
        `DELETE FROM pms_connections WHERE tenant_id = $1 RETURNING ${CONNECTION}`,
        [tenantId],
      );
      return r.rows[0];
    },

    /** The reservation rule and the webhook subscription that serves it (all null: off). */
    async setReservationRule(
      tenantId: string,
      version: string,
      rule: { kind: ReservationRuleKind; value: number | null; secretHash: string; subscriptionId: string } | null,
    ): Promise<boolean> {
      const r = await db.query(
        `UPDATE pms_connections SET reservation_rule = $3, reservation_rule_value = $4, webhook_secret_hash = $5,
                webhook_subscription_id = $6, updated_at = now()
          WHERE tenant_id = $1 AND version = $2::bigint`,
        [
          tenantId,
          version,
          rule?.kind ?? null,
          rule?.value ?? null,
          rule?.secretHash ?? null,
          rule?.subscriptionId ?? null,
        ],
      );
      return r.rowCount > 0;
    },

    /** The posting its job is about, with the tenant's connection and the request's card. */
    async work(id: string): Promise<PostingWork | undefined> {
      const r = await db.query<
        PostingRow & { card_network: CardNetwork | null; masked_pan: string | null; c: ConnectionRow | null }
      >(
        `SELECT ${POSTING}, pr.card_network, pr.masked_pan,
                (SELECT to_jsonb(x) FROM (SELECT ${CONNECTION} FROM pms_connections WHERE tenant_id = p.tenant_id) x) AS c
           FROM pms_postings p LEFT JOIN payment_requests pr ON pr.id = p.payment_request_id
          WHERE p.id = $1`,
        [id],
      );
      const row = r.rows[0];
      if (!row) return undefined;
      const { c, ...posting } = row;
      return { ...posting, connection: c };
    },

    /** Writes an attempt's outcome (in the job's settlement). */
    async record(q: Queryable, id: string, o: PostingOutcome): Promise<void> {
      await q.query(
        `UPDATE pms_postings SET state = $2, reason = $3, apaleo_id = COALESCE($4, apaleo_id),
                folio_id = COALESCE($5, folio_id), method = COALESCE($6, method),
                posted_at = CASE WHEN $2 = 'posted' THEN now() ELSE posted_at END,
                maybe_sent = maybe_sent OR $7, next_attempt_at = COALESCE($8::timestamptz, next_attempt_at),
                attempts = attempts + 1, updated_at = now()
          WHERE id = $1`,
        [
          id,
          o.state,
          o.state === 'posted' ? null : o.reason,
          o.state === 'posted' ? o.apaleoId : null,
          o.state === 'posted' ? o.folioId : 'folioId' in o ? (o.folioId ?? null) : null,
          o.state === 'posted' ? o.method : null,
          o.state === 'posted' ? false : (o.maybeSent ?? false),
          o.state === 'pending' ? o.nextAttemptAt : null,
        ],
      );
    },

    /** A posting refused for good, tried again (by hand, once fixed): pending, its back-off anew. */
    async retry(tenantId: string, id: string): Promise<PostingRow | undefined> {
      const r = await db.query<PostingRow>(
        `UPDATE pms_postings p SET state = 'pending', reason = NULL, attempts = 0, retries = retries + 1, first_due_at = now(),
                next_attempt_at = now(), updated_at = now()
          WHERE p.id = $2 AND p.tenant_id = $1 AND p.state = 'failed'
          RETURNING ${POSTING}`,
        [tenantId, id],
      );
      return r.rows[0];
    },

    /** A tenant's postings, newest first (`failed`: only those refused for good); skipped ones are not postings. */
    async list(tenantId: string, opts: { failed?: boolean; limit?: number } = {}): Promise<PostingRow[]> {
      const r = await db.query<PostingRow>(
        `SELECT ${POSTING} FROM pms_postings p
          WHERE p.tenant_id = $1 AND ${opts.failed ? "p.state = 'failed'" : "p.state <> 'skipped'"}
          ORDER BY p.id DESC LIMIT $2`,
        [tenantId, opts.limit ?? 1000],
      );
      return r.rows;
    },

    /** A request's postings, skipped ones included (its page says why nothing was posted). */
    async forRequest(tenantId: string, requestId: string): Promise<PostingRow[]> {
      const r = await db.query<PostingRow>(
        `SELECT ${POSTING} FROM pms_postings p WHERE p.payment_request_id = $2 AND p.tenant_id = $1 ORDER BY p.id`,
        [tenantId, requestId],
      );
      return r.rows;
    },

    /** The last posting that reached an end (posted or refused): the settings page's "last posting". */
    async lastSettled(tenantId: string): Promise<PostingRow | undefined> {
      const r = await db.query<PostingRow>(
        `SELECT ${POSTING} FROM pms_postings p
          WHERE p.tenant_id = $1 AND p.state IN ('posted', 'failed') ORDER BY p.updated_at DESC, p.id DESC LIMIT 1`,
        [tenantId],
      );
      return r.rows[0];
    },

    /** An event as Apaleo delivered it, once (a second delivery of the same event id adds nothing). */
    async addEvent(e: { tenantId: string; eventId: string; type: string; reservationId: string }): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO pms_events (tenant_id, event_id, type, reservation_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, event_id) DO NOTHING`,
        [e.tenantId, e.eventId, e.type, e.reservationId],
      );
      return r.rowCount > 0;
    },

    async event(id: string): Promise<EventRow | undefined> {
      const r = await db.query<EventRow>(
        `SELECT id::text, tenant_id, event_id, type, reservation_id, state, outcome, attempts, created_at
           FROM pms_events WHERE id = $1`,
        [id],
      );
      return r.rows[0];
    },

    async recordEvent(q: Queryable, id: string, state: EventRow['state'], outcome: string): Promise<void> {
      await q.query(
        'UPDATE pms_events SET state = $2, outcome = $3, attempts = attempts + 1, updated_at = now() WHERE id = $1',
        [id, state, outcome.slice(0, 1000)],
      );
    },
  };
}
export type PmsRepository = ReturnType<typeof pmsRepository>;
