import type { CardNetwork, Currency, Language, RequestType } from '../domain/index.ts';
import type { Queryable } from './database.ts';

export type OutboxKind =
  | 'payment_link'
  | 'deposit_confirmation'
  | 'card_registered'
  | 'capture_notice'
  | 'release_notice'
  | 'refund_notice'
  | 'guarantee_failed_guest'
  | 'guarantee_failed_hotel'
  | 'hold_declined_hotel'
  | 'payment_reminder'
  | 'daily_digest'
  | 'team_invitation';

/** E-mails to the hotel (its contact address), not to the guest: they do not set `email_sent`. */
export const HOTEL_KINDS: readonly OutboxKind[] = ['guarantee_failed_hotel', 'hold_declined_hotel'];

/** An e-mail to send: its outbox row, with what renders it. */
export interface OutboxEmail {
  id: string;
  tenant_id: string;
  payment_request_id: string | null;
  kind: OutboxKind;
  cause: string;
  attempts: number;
  /** For a capture or refund notice: the amount that moved (minor units). */
  moved_amount: number | null;
  /** For the hotel's failed-guarantee e-mail: whether the guest was asked for the same refused hold. */
  guest_asked: boolean | null;
  /** For a reminder: which one (1, 2, ...). */
  reminder_number: number | null;
  /** For a daily digest: its content, as the job computed it. */
  payload: unknown;
}

/** Who a tenant's own e-mails (the daily digest) come from and go to. */
export interface TenantMailRow {
  id: string;
  name: string;
  sender_email: string | null;
  contact_email: string | null;
  timezone: string;
  digest_language: Language;
}

/**
 * The request and tenant settings an e-mail is rendered from, as stored: `hold_days` is the
 * tenant's setting and `account_provider` its provider account, from which the mail room
 * works out how long a hold may last at most.
 */
export interface EmailSubjectRow {
  id: string;
  reference: string;
  request_type: RequestType;
  amount: number;
  amount_captured: number;
  currency: Currency;
  language: Language;
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string;
  /** A reminder is dropped once the link is no longer to be paid. */
  status: string;
  link_expires_at: Date;
  reservation_data: Record<string, unknown>;
  masked_pan: string;
  card_expiry_month: number | null;
  card_expiry_year: number | null;
  /** When the request last changed: for a paid deposit, when it was paid. */
  updated_at: Date;
  tenant_name: string;
  sender_email: string | null;
  /** The hotel's time zone, for dates and times shown to the guest. */
  timezone: string;
  hold_days: number;
  account_provider: string | null;
  /** The network of the registered card (its holds live by its rule); null: none, or not told. */
  card_network: CardNetwork | null;
  /** The hotel's contact address: where its own e-mails (a failed guarantee) go; null: none. */
  contact_email: string | null;
  /** The bank's answer to the last hold, and how many holds it refused. */
  last_hold_error: string | null;
  /** That answer in the closed list of decline reasons, and the provider's code for it. */
  hold_decline_reason: string | null;
  hold_decline_code: string | null;
  guarantee_failures: number;
  /** Why the hotel captured (a reason of domain/money-reasons.ts's list), and its note; null: none given. */
  capture_reason: string | null;
  capture_note: string | null;
  /** The check-in day (YYYY-MM-DD), or null: a soft decline is final on that day's run. */
  checkin: string | null;
  /** The hotel's language (its digest's): the language of the e-mails to the hotel. */
  hotel_language: Language;
}

/** An e-mail as the worker rendered it, kept in development for the mail viewer. */
export interface DevMessage {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** When it was rendered (sent, or logged for want of SMTP_URL), ISO 8601. */
  renderedAt: string;
}

/** An outbox row as the development mail viewer lists it. */
export interface DevMailRow {
  id: string;
  kind: OutboxKind;
  status: 'pending' | 'sent' | 'failed' | 'expired';
  created_at: Date;
  sent_at: Date | null;
  last_error: string | null;
  message: DevMessage;
}

/** Marks a row kept back because SMTP_URL is unset, so a start with SMTP sends it at once. */
export const LOGGED_ONLY = 'SMTP_URL not set: logged, not sent';

/**
 * The e-mail outbox, the record of every e-mail: what to send, and whether and when it was.
 * A pending row has its job in the queue (trigger, migration 0049), which schedules it.
 */
export function emailOutboxRepository(db: Queryable) {
  return {
    /**
     * The pending row of a job the queue gave this instance (src/queue/): the queue holds its
     * lease, this row only says what to send. Undefined once sent, failed or deleted.
     */
    async load(id: string): Promise<OutboxEmail | undefined> {
      const r = await db.query<OutboxEmail>(
        `SELECT o.id::text AS id, o.tenant_id, o.payment_request_id, o.kind, o.cause, o.attempts,
                (SELECT l.amount FROM money_ledger l WHERE l.id = o.ledger_id) AS moved_amount,
                CASE WHEN o.kind = 'guarantee_failed_hotel'
                     THEN EXISTS (SELECT 1 FROM email_outbox g WHERE g.cause = 'guarantee_failed_guest:' || o.ledger_id)
                END AS guest_asked,
                o.reminder_number, o.payload
           FROM email_outbox o WHERE o.id = $1::bigint AND o.status = 'pending'`,
        [id],
      );
      return r.rows[0];
    },

    async subjects(ids: string[]): Promise<EmailSubjectRow[]> {
      if (ids.length === 0) return [];
      const r = await db.query<EmailSubjectRow>(
        `SELECT p.id, p.reference, p.request_type, p.amount, p.amount_captured, p.currency, p.language,
                p.guest_first_name, p.guest_last_name, p.guest_email, p.status, p.link_expires_at, p.reservation_data,
                p.masked_pan, p.card_network, p.card_expiry_month, p.card_expiry_year, p.updated_at,
                t.name AS tenant_name, t.sender_email, t.timezone, t.hold_days, a.provider AS account_provider,
                t.contact_email, p.last_hold_error, p.guarantee_failures, p.hold_decline_reason, p.hold_decline_code,
                p.capture_reason, p.capture_note,
                to_char(p.checkin, 'YYYY-MM-DD') AS checkin, t.digest_language AS hotel_language
           FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
           LEFT JOIN provider_accounts a ON a.tenant_id = p.tenant_id
          WHERE p.id = ANY($1::uuid[])`,
        [ids],
      );
      return r.rows;
    },

    async tenants(ids: string[]): Promise<TenantMailRow[]> {
      if (ids.length === 0) return [];
      const r = await db.query<TenantMailRow>(
        `SELECT id::text, name, sender_email, contact_email, timezone, digest_language FROM tenants
          WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return r.rows;
    },

    /**
     * The SMTP server accepted: the row is sent and the request says so, in one statement, with
     * the attempts the queue counted. Conditional on the row still being pending, so a late
     * duplicate cannot flip it twice.
     */
    async markSent(id: string, attempts: number): Promise<void> {
      await db.query(
        `WITH o AS (
           UPDATE email_outbox SET status = 'sent', sent_at = now(), last_error = NULL, attempts = $3
            WHERE id = $1::bigint AND status = 'pending'
           RETURNING payment_request_id, kind
         )
         UPDATE payment_requests p SET email_sent = true FROM o
          WHERE p.id = o.payment_request_id AND NOT o.kind = ANY($2::text[])`,
        [id, HOTEL_KINDS, attempts],
      );
    },

    /** A failed attempt: retried at `retryAt`, or given up for good when `final`. */
    async markFailed(id: string, error: string, retryAt: Date, final: boolean, attempts: number): Promise<void> {
      await db.query(
        `UPDATE email_outbox
            SET last_error = $2, next_attempt_at = $3::timestamptz, attempts = $5,
                status = CASE WHEN $4::boolean THEN 'failed' ELSE 'pending' END
          WHERE id = $1::bigint AND status = 'pending'`,
        [id, error.slice(0, 1000), retryAt, final, attempts],
      );
    },

    /** Logged instead of sent (no SMTP_URL): the attempt does not count, the row stays pending. */
    async keepPending(id: string, retryAt: Date, attempts: number): Promise<void> {
      await db.query(
        `UPDATE email_outbox SET attempts = $4, last_error = $2, next_attempt_at = $3::timestamptz
          WHERE id = $1::bigint AND status = 'pending'`,
        [id, LOGGED_ONLY, retryAt, attempts],
      );
    },

    /**
     * Development: the message as rendered, for the mail viewer. The first rendering is kept (a
     * row only logged is logged again every hour; the guest would have read the first).
     */
    async keepDevMessage(id: string, message: DevMessage): Promise<void> {
      await db.query('UPDATE email_outbox SET dev_message = coalesce(dev_message, $2::jsonb) WHERE id = $1::bigint', [
        id,
        JSON.stringify(message),
      ]);
    },

    /**
     * The messages kept for the development mail viewer, newest first. Ordered by the table's
     * column: a bare `ORDER BY id` names the output column, the id as text, where "9" > "10".
     */
    async devMessages(limit: number): Promise<DevMailRow[]> {
      const r = await db.query<DevMailRow>(
        `SELECT o.id::text AS id, kind, status, created_at, sent_at, last_error, dev_message AS message
           FROM email_outbox o WHERE dev_message IS NOT NULL ORDER BY o.id DESC LIMIT $1`,
        [limit],
      );
      return r.rows;
    },

    /** One kept message; undefined when there is none of that id. */
    async devMessage(id: string): Promise<DevMailRow | undefined> {
      const r = await db.query<DevMailRow>(
        `SELECT id::text AS id, kind, status, created_at, sent_at, last_error, dev_message AS message
           FROM email_outbox WHERE id = $1::bigint AND dev_message IS NOT NULL`,
        [id],
      );
      return r.rows[0];
    },

    /**
     * With SMTP now configured, the rows only logged so far (the backlog of a time without
     * SMTP_URL): those queued less than `maxAgeHours` ago are due at once, the older ones
     * `expired`, not sent. One statement, so each row is counted once, whichever instance
     * starts first. Returns how many of each.
     */
    async releaseLoggedOnly(maxAgeHours: number): Promise<{ sending: number; expired: number }> {
      const r = await db.query<{ sending: number; expired: number }>(
        `WITH backlog AS (
           SELECT id, created_at < now() - make_interval(hours => $2::int) AS too_old
             FROM email_outbox WHERE status = 'pending' AND last_error = $1
              FOR UPDATE SKIP LOCKED
         ), moved AS (
           UPDATE email_outbox o
              SET status = CASE WHEN b.too_old THEN 'expired' ELSE 'pending' END,
                  next_attempt_at = now(),
                  last_error = CASE WHEN b.too_old THEN $3 END
             FROM backlog b WHERE o.id = b.id
           RETURNING o.status
         )
         SELECT count(*) FILTER (WHERE status = 'pending')::int AS sending,
                count(*) FILTER (WHERE status = 'expired')::int AS expired
           FROM moved`,
        [LOGGED_ONLY, maxAgeHours, `expired: queued more than ${maxAgeHours} h before SMTP_URL was set`],
      );
      return r.rows[0] ?? { sending: 0, expired: 0 };
    },
  };
}
