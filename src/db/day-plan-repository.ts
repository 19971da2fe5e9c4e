import { type Currency, type Language, OPEN_LINK_STATUSES, type RequestType, type Status } from '../domain/index.ts';
import type { Queryable } from './database.ts';
import { GUARANTEE_FAILED } from './guarantee-failed.ts';
import { statusLiterals } from './status-literals.ts';

/** A request in one of the Today page's (and digest's) lists, with what each list shows of it. */
export interface DayPlanRow {
  id: string;
  tenant_id: string;
  reference: string;
  request_type: RequestType;
  status: Status;
  amount: number;
  currency: Currency;
  guest_first_name: string;
  guest_last_name: string;
  reservation_ref: string;
  /** `YYYY-MM-DD`, or null when the PMS gave none. */
  checkin: string | null;
  /** reservation_data.checkout as the PMS sent it (validated as a date at create), or null. */
  checkout: string | null;
  hold_expires_at: Date | null;
  /** When its status last changed (for a failed guarantee: when the daily job failed it). */
  changed_at: Date;
  last_hold_error: string | null;
  /** Why the bank declined the last hold (the closed list), and the provider's code for it. */
  hold_decline_reason: string | null;
  hold_decline_code: string | null;
}

export interface ReminderHistoryRow {
  reminder_number: number;
  status: 'pending' | 'sent' | 'failed' | 'expired';
  created_at: Date;
  sent_at: Date | null;
  last_error: string | null;
}

/** Money moved on one local day, per currency (minor units), and what happened to requests. */
export interface DayTotals {
  created: number;
  /** Deposits paid and cards registered. */
  completed: number;
  taken: { currency: Currency; cents: number; count: number }[];
  refunded: { currency: Currency; cents: number; count: number }[];
}

export interface DigestTenantRow {
  id: string;
  name: string;
  timezone: string;
  digest_hour: number;
  digest_language: Language;
}

const ROW = `p.id, p.tenant_id::text, p.reference, p.request_type, p.status, p.amount, p.currency,
  p.guest_first_name, p.guest_last_name, p.reservation_ref, to_char(p.checkin, 'YYYY-MM-DD') AS checkin,
  p.reservation_data->>'checkout' AS checkout, p.hold_expires_at, p.updated_at AS changed_at, p.last_hold_error,
  p.hold_decline_reason, p.hold_decline_code`;

/**
 * The queries of the hotel's day: reminders to queue, the Today page's lists and the daily
 * digest. One tenant at a time (the Today page and the digest are a hotel's own).
 */
export function dayPlanRepository(db: Queryable) {
  return {
    /**
     * Queues the reminders due at `now`, one statement for every tenant with reminders on. A
     * request's slot at `now` is the before-expiry one once that moment has come, else the
     * latest "every N hours" one (`after:K`); slots missed while nothing ran collapse into the
     * latest. The cause names the slot (once per slot), the number is unique per request (never
     * more than the maximum, even from runs racing with different clocks). While the
     * before-expiry reminder is on, the others stop one short of the maximum so it keeps its
     * place. A request younger than an hour is never reminded (a short link with a long
     * before-expiry setting would otherwise be reminded at once).
     */
    async queueReminders(now: Date): Promise<{ payment_request_id: string; reminder_number: number }[]> {
      const r = await db.query<{ payment_request_id: string; reminder_number: number }>(
        `WITH due AS (
           SELECT p.id, p.tenant_id, t.reminder_max, t.reminder_before_expiry_hours AS before_hours,
                  CASE WHEN t.reminder_before_expiry_hours > 0
                             AND $1::timestamptz >= p.link_expires_at - make_interval(hours => t.reminder_before_expiry_hours)
                       THEN 'before'
                       WHEN t.reminder_after_hours > 0
                             AND $1::timestamptz >= p.created_at + make_interval(hours => t.reminder_after_hours)
                       THEN 'after:' || floor(extract(epoch FROM ($1::timestamptz - p.created_at))
                                              / (t.reminder_after_hours * 3600))::int
                  END AS slot
             FROM payment_requests p JOIN tenants t ON t.id = p.tenant_id
            WHERE t.reminders
              AND p.status IN (${statusLiterals(OPEN_LINK_STATUSES)})
              -- A failed guarantee asks the guest for another card itself, counted and capped.
              AND p.guarantee_failed_at IS NULL
              AND p.link_expires_at > $1::timestamptz
              AND p.created_at <= $1::timestamptz - interval '1 hour'
         ), counted AS (
           SELECT d.*, (SELECT count(*)::int FROM email_outbox o
                         WHERE o.payment_request_id = d.id AND o.kind = 'payment_reminder') AS queued
             FROM due d
            WHERE d.slot IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM email_outbox o WHERE o.cause = 'payment_reminder:' || d.id || ':' || d.slot)
         )
         INSERT INTO email_outbox (tenant_id, payment_request_id, kind, cause, reminder_number)
         SELECT c.tenant_id, c.id, 'payment_reminder', 'payment_reminder:' || c.id || ':' || c.slot, c.queued + 1
           FROM counted c
          WHERE c.queued < c.reminder_max
            AND (c.slot = 'before' OR c.before_hours = 0 OR c.queued + 1 < c.reminder_max)
         ON CONFLICT DO NOTHING
         RETURNING payment_request_id::text, reminder_number`,
        [now],
      );
      return r.rows;
    },

    /** A request's reminders, for its history on the back office. */
    async reminderHistory(paymentRequestId: string): Promise<ReminderHistoryRow[]> {
      const r = await db.query<ReminderHistoryRow>(
        `SELECT reminder_number, status, created_at, sent_at, last_error FROM email_outbox
          WHERE payment_request_id = $1 AND kind = 'payment_reminder' ORDER BY reminder_number`,
        [paymentRequestId],
      );
      return r.rows;
    },

    /**
     * Failed guarantees still waiting for another card: a refused hold left the IMPRINT in
     * ERROR with its guarantee marked failed, until the guest registers a card, the hotel
     * cancels or the link expires. Everything that shows them (the Today page, the digest)
     * reads this one function; its partial index holds exactly these rows.
     */
    async failedGuarantees(tenantId: string, limit: number): Promise<DayPlanRow[]> {
      const r = await db.query<DayPlanRow>(
        `SELECT ${ROW.replace('p.updated_at AS changed_at', 'p.guarantee_failed_at AS changed_at')}
           FROM payment_requests p
          WHERE p.tenant_id = $1 AND ${GUARANTEE_FAILED('p')}
          ORDER BY p.checkin NULLS LAST, p.reference LIMIT $2`,
        [tenantId, limit],
      );
      return r.rows;
    },

    /**
     * Holds the bank declined softly before the check-in day: the IMPRINT stays AUTHORISED, its
     * card the guarantee, and the daily job tries again each morning until the check-in day's
     * run, whose refusal is final. Soonest check-in first; read through their partial index.
     */
    async declinedHolds(tenantId: string, limit: number): Promise<DayPlanRow[]> {
      const r = await db.query<DayPlanRow>(
        `SELECT ${ROW} FROM payment_requests p
          WHERE p.tenant_id = $1 AND p.status = 'AUTHORISED' AND p.hold_decline_reason IS NOT NULL
          ORDER BY p.checkin NULLS LAST, p.reference LIMIT $2`,
        [tenantId, limit],
      );
      return r.rows;
    },

    /** Holds (AUTHORISED_TO_VALIDATE) that end after `from` and by `until`, soonest first. */
    async holdsEnding(tenantId: string, from: Date, until: Date, limit: number): Promise<DayPlanRow[]> {
      const r = await db.query<DayPlanRow>(
        `SELECT ${ROW} FROM payment_requests p
          WHERE p.tenant_id = $1 AND p.status = 'AUTHORISED_TO_VALIDATE'
            AND p.hold_expires_at > $2::timestamptz AND p.hold_expires_at <= $3::timestamptz
          ORDER BY p.hold_expires_at, p.reference LIMIT $4`,
        [tenantId, from, until, limit],
      );
      return r.rows;
    },

    /** Requests of stays starting on one of `dates` (not cancelled), by day and reference. */
    async arrivals(tenantId: string, dates: readonly string[], limit: number): Promise<DayPlanRow[]> {
      const r = await db.query<DayPlanRow>(
        `SELECT ${ROW} FROM payment_requests p
          WHERE p.tenant_id = $1 AND p.checkin = ANY($2::date[]) AND p.status <> 'CANCELLED'
          ORDER BY p.checkin, p.guest_last_name, p.reference LIMIT $3`,
        [tenantId, dates, limit],
      );
      return r.rows;
    },

    /**
     * What happened on the local day `date` in `timezone` (from its midnight to the next, so a
     * 23- or 25-hour day counts as it is): requests made, deposits paid and cards registered,
     * money taken (payments and captures) and given back, per currency.
     */
    async dayTotals(tenantId: string, date: string, timezone: string): Promise<DayTotals> {
      const counts = await db.query<{ created: number; completed: number }>(
        `SELECT (SELECT count(*)::int FROM payment_requests p
                  WHERE p.tenant_id = $1 AND p.created_at >= ($2::date::timestamp AT TIME ZONE $3)
                    AND p.created_at < (($2::date + 1)::timestamp AT TIME ZONE $3)) AS created,
                (SELECT count(*)::int FROM status_history s
                  WHERE s.tenant_id = $1 AND s.created_at >= ($2::date::timestamp AT TIME ZONE $3)
                    AND s.created_at < (($2::date + 1)::timestamp AT TIME ZONE $3)
                    AND ((s.to_status = 'CAPTURED' AND s.from_status IN (${statusLiterals(OPEN_LINK_STATUSES)}))
                         OR s.to_status = 'AUTHORISED')) AS completed`,
        [tenantId, date, timezone],
      );
      const money = await db.query<{ kind: 'taken' | 'refunded'; currency: Currency; cents: number; count: number }>(
        `SELECT CASE WHEN l.kind = 'refund' THEN 'refunded' ELSE 'taken' END AS kind, l.currency,
                sum(l.amount)::int AS cents, count(*)::int AS count
           FROM money_ledger l
          WHERE l.tenant_id = $1 AND l.state = 'succeeded' AND l.incident IS NULL
            AND l.kind IN ('payment', 'capture', 'refund')
            AND l.updated_at >= ($2::date::timestamp AT TIME ZONE $3)
            AND l.updated_at < (($2::date + 1)::timestamp AT TIME ZONE $3)
          GROUP BY 1, 2 ORDER BY 1, 2`,
        [tenantId, date, timezone],
      );
      const c = counts.rows[0] ?? { created: 0, completed: 0 };
      const pick = (kind: 'taken' | 'refunded') =>
        money.rows.filter((m) => m.kind === kind).map(({ currency, cents, count }) => ({ currency, cents, count }));
      return { created: c.created, completed: c.completed, taken: pick('taken'), refunded: pick('refunded') };
    },

    /** Tenants that asked for the digest and have an address to send it to. */
    async digestTenants(): Promise<DigestTenantRow[]> {
      const r = await db.query<DigestTenantRow>(
        `SELECT id::text, name, timezone, digest_hour, digest_language FROM tenants
          WHERE digest_email AND contact_email IS NOT NULL ORDER BY id`,
      );
      return r.rows;
    },

    /** Queues a tenant's digest of local day `date`; false when it was queued already (by anyone). */
    async queueDigest(tenantId: string, date: string, payload: unknown): Promise<boolean> {
      const r = await db.query(
        `INSERT INTO email_outbox (tenant_id, kind, cause, payload)
         VALUES ($1, 'daily_digest', $2, $3::jsonb) ON CONFLICT DO NOTHING`,
        [tenantId, `daily_digest:${tenantId}:${date}`, JSON.stringify(payload)],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
export type DayPlanRepository = ReturnType<typeof dayPlanRepository>;
